// The zip archive of a step's artifact, as GitHub serves it behind the REST API's artifact download:
// upload-artifact zips the files, the REST download redirects to that zip. Stored entries (no
// compression), which every unzip reads; the reader takes only what the writer makes and refuses the rest.
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { dirname, join, relative, resolve, sep } from 'node:path'
import { crc32 } from 'node:zlib'

const LOCAL = 0x04034b50
const CENTRAL = 0x02014b50
const END = 0x06054b50

/** Every file under `folder`, as a zip whose entry names are the paths relative to it. */
export function zipFolder(folder: string): Buffer {
  const files = filesUnder(folder)
  const parts: Buffer[] = []
  const central: Buffer[] = []
  let offset = 0
  for (const path of files) {
    const name = Buffer.from(relative(folder, path).split(sep).join('/'), 'utf8')
    const data = readFileSync(path)
    const crc = crc32(data)
    const local = Buffer.alloc(30)
    local.writeUInt32LE(LOCAL, 0)
    local.writeUInt16LE(20, 4) // version needed
    local.writeUInt16LE(0x0800, 6) // UTF-8 names
    local.writeUInt16LE(0, 8) // stored
    local.writeUInt32LE(crc, 14)
    local.writeUInt32LE(data.length, 18)
    local.writeUInt32LE(data.length, 22)
    local.writeUInt16LE(name.length, 26)
    const entry = Buffer.alloc(46)
    entry.writeUInt32LE(CENTRAL, 0)
    entry.writeUInt16LE(20, 4)
    entry.writeUInt16LE(20, 6)
    entry.writeUInt16LE(0x0800, 8)
    entry.writeUInt32LE(crc, 16)
    entry.writeUInt32LE(data.length, 20)
    entry.writeUInt32LE(data.length, 24)
    entry.writeUInt16LE(name.length, 28)
    entry.writeUInt32LE(offset, 42)
    parts.push(local, name, data)
    central.push(entry, name)
    offset += local.length + name.length + data.length
  }
  const directory = Buffer.concat(central)
  const end = Buffer.alloc(22)
  end.writeUInt32LE(END, 0)
  end.writeUInt16LE(files.length, 8)
  end.writeUInt16LE(files.length, 10)
  end.writeUInt32LE(directory.length, 12)
  end.writeUInt32LE(offset, 16)
  return Buffer.concat([...parts, directory, end])
}

/** Writes the entries of a zip `zipFolder` made into `destination`; throws on anything else. */
export function unzipInto(zip: Buffer, destination: string): number {
  const endAt = zip.length - 22
  if (endAt < 0 || zip.readUInt32LE(endAt) !== END) throw new Error('not a zip archive (no end of central directory)')
  const count = zip.readUInt16LE(endAt + 10)
  let at = 0
  for (let index = 0; index < count; index++) {
    if (zip.readUInt32LE(at) !== LOCAL) throw new Error(`zip entry ${index}: no local header at ${at}`)
    if (zip.readUInt16LE(at + 8) !== 0) throw new Error(`zip entry ${index}: only stored entries are read here`)
    const crc = zip.readUInt32LE(at + 14)
    const size = zip.readUInt32LE(at + 18)
    const nameLength = zip.readUInt16LE(at + 26)
    const extraLength = zip.readUInt16LE(at + 28)
    const name = zip.subarray(at + 30, at + 30 + nameLength).toString('utf8')
    const start = at + 30 + nameLength + extraLength
    const data = zip.subarray(start, start + size)
    if (crc32(data) !== crc) throw new Error(`zip entry ${name}: CRC mismatch`)
    const target = resolve(destination, name)
    // As the artifact client does: an entry that would land outside the destination is refused.
    if (!target.startsWith(`${resolve(destination)}${sep}`))
      throw new Error(`zip entry ${name} is outside the destination`)
    mkdirSync(dirname(target), { recursive: true })
    writeFileSync(target, data)
    at = start + size
  }
  return count
}

function filesUnder(folder: string): string[] {
  return readdirSync(folder)
    .sort()
    .flatMap((name) => {
      const path = join(folder, name)
      return statSync(path).isDirectory() ? filesUnder(path) : [path]
    })
}
