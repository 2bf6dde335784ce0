// The blob side of the results stand-in: the Azure Blob REST subset behind the services' signed URLs
// (Put Blob, Put Block, Put Block List, Get Blob with Range, Get Properties).
import { randomBytes, randomUUID } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'

/** The storage account in the blob URLs' paths (Azurite's default account name). */
export const ACCOUNT = 'devstoreaccount1'

export interface StoredBlob {
  data: Buffer
  contentType: string
  blocks: Map<string, Buffer>
  committed: boolean
  etag: string
  lastModified: Date
}

/** What the blob side needs of the server. */
export interface BlobSide {
  blobs: Map<string, StoredBlob>
  /** The signature the server gives a URL of `path`, `expiry` and `permissions`. */
  signature(path: string, expiry: string, permissions: string): string
  log(req: IncomingMessage, operation: string, status: number): void
  /** Whether this download is to be truncated (a fault the test asked for); counts it down. */
  takeTruncation(): boolean
}

export async function handleBlobRequest(
  side: BlobSide,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
): Promise<void> {
  const blobName = decodeURIComponent(url.pathname.slice(`/${ACCOUNT}/`.length))
  const comp = url.searchParams.get('comp')
  const operation =
    req.method === 'PUT'
      ? comp === 'block'
        ? 'PutBlock'
        : comp === 'blocklist'
          ? 'PutBlockList'
          : 'PutBlob'
      : req.method === 'HEAD'
        ? 'GetBlobProperties'
        : 'GetBlob'
  const body = await readBody(req)
  const fail = (status: number, code: string, message: string) => {
    side.log(req, operation, status)
    const xml = `<?xml version="1.0" encoding="utf-8"?><Error><Code>${code}</Code><Message>${message}</Message></Error>`
    res.writeHead(status, { 'content-type': 'application/xml', 'x-ms-error-code': code })
    res.end(req.method === 'HEAD' ? undefined : xml)
  }
  const expiry = url.searchParams.get('se') ?? ''
  const permissions = url.searchParams.get('sp') ?? ''
  const signature = url.searchParams.get('sig') ?? ''
  if (signature !== side.signature(url.pathname, expiry, permissions)) {
    return fail(403, 'AuthenticationFailed', 'Signature did not match.')
  }
  if (Date.parse(expiry) < Date.now()) return fail(403, 'AuthenticationFailed', 'Signed expiry time has passed.')
  const needed = req.method === 'PUT' ? 'w' : 'r'
  if (!permissions.includes(needed)) return fail(403, 'AuthorizationPermissionMismatch', `Needs ${needed}.`)
  const common = (blob: StoredBlob) => ({
    etag: blob.etag,
    'last-modified': blob.lastModified.toUTCString(),
    'x-ms-request-id': randomUUID(),
    'x-ms-version': '2024-05-04',
    date: new Date().toUTCString(),
  })
  if (req.method === 'PUT') {
    const blob = side.blobs.get(blobName) ?? {
      data: Buffer.alloc(0),
      contentType: 'application/octet-stream',
      blocks: new Map(),
      committed: false,
      etag: '',
      lastModified: new Date(),
    }
    side.blobs.set(blobName, blob)
    if (operation === 'PutBlock') {
      const blockId = url.searchParams.get('blockid')
      if (!blockId) return fail(400, 'InvalidQueryParameterValue', 'blockid is required')
      blob.blocks.set(blockId, body)
    } else if (operation === 'PutBlockList') {
      const ids = [...body.toString('utf8').matchAll(/<(?:Latest|Committed|Uncommitted)>([^<]*)<\//g)].map((m) => m[1]!)
      const parts: Buffer[] = []
      for (const id of ids) {
        const block = blob.blocks.get(id)
        if (!block) return fail(400, 'InvalidBlockList', `block ${id} was not staged`)
        parts.push(block)
      }
      blob.data = Buffer.concat(parts)
      blob.blocks.clear()
      blob.committed = true
      blob.contentType = String(req.headers['x-ms-blob-content-type'] ?? blob.contentType)
    } else {
      blob.data = body
      blob.committed = true
      blob.contentType = String(
        req.headers['x-ms-blob-content-type'] ?? req.headers['content-type'] ?? blob.contentType,
      )
    }
    blob.etag = `"0x${randomBytes(8).toString('hex').toUpperCase()}"`
    blob.lastModified = new Date()
    side.log(req, operation, 201)
    res.writeHead(201, { ...common(blob), 'x-ms-request-server-encrypted': 'true', 'content-length': '0' })
    res.end()
    return
  }
  const blob = side.blobs.get(blobName)
  if (!blob?.committed) return fail(404, 'BlobNotFound', 'The specified blob does not exist.')
  const headers: Record<string, string> = {
    ...common(blob),
    'content-type': blob.contentType,
    'x-ms-blob-type': 'BlockBlob',
    'accept-ranges': 'bytes',
  }
  if (req.method === 'HEAD') {
    side.log(req, operation, 200)
    res.writeHead(200, { ...headers, 'content-length': String(blob.data.length) })
    res.end()
    return
  }
  let data = blob.data
  let status = 200
  const range = /^bytes=(\d+)-(\d*)$/.exec(String(req.headers['x-ms-range'] ?? req.headers.range ?? ''))
  if (range) {
    const start = Number(range[1])
    const end = range[2] ? Math.min(Number(range[2]), blob.data.length - 1) : blob.data.length - 1
    data = blob.data.subarray(start, end + 1)
    status = 206
    headers['content-range'] = `bytes ${start}-${end}/${blob.data.length}`
  }
  headers['content-length'] = String(data.length)
  if (side.takeTruncation()) {
    side.log(req, `${operation}(truncated)`, status)
    res.writeHead(status, headers)
    res.write(data.subarray(0, Math.floor(data.length / 2)))
    // Let the half reach the client before the connection drops, as a broken transfer does.
    setTimeout(() => res.destroy(), 20)
    return
  }
  side.log(req, operation, status)
  res.writeHead(status, headers)
  res.end(data)
}

export function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => resolve(Buffer.concat(chunks)))
    req.on('error', reject)
  })
}
