export const id = 699;
export const ids = [699];
export const modules = {

/***/ 31699:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {


// EXPORTS
__webpack_require__.d(__webpack_exports__, {
  ArtifactStore: () => (/* reexport */ ArtifactStore),
  AutoStore: () => (/* reexport */ AutoStore),
  CacheStore: () => (/* reexport */ CacheStore),
  GitStore: () => (/* reexport */ git_store/* GitStore */.W)
});

// UNUSED EXPORTS: GitPushRejectedError, MAX_CACHE_KEY_LENGTH, StoreUnavailableError

// EXTERNAL MODULE: external "node:fs/promises"
var promises_ = __webpack_require__(51455);
// EXTERNAL MODULE: external "node:path"
var external_node_path_ = __webpack_require__(76760);
// EXTERNAL MODULE: ./src/ports/store.ts
var store = __webpack_require__(93433);
// EXTERNAL MODULE: ./node_modules/@actions/artifact/lib/artifact.js + 85 modules
var artifact = __webpack_require__(142);
// EXTERNAL MODULE: ./src/adapters/github-client.ts + 1 modules
var github_client = __webpack_require__(49960);
// EXTERNAL MODULE: ./src/adapters/stores/shared.ts
var shared = __webpack_require__(56474);
;// CONCATENATED MODULE: ./src/adapters/stores/artifact-snapshots.ts
/**
 * The artifact store's transport: list, download and delete a loop's snapshot artifacts across runs
 * through the REST API and the real `@actions/artifact` (v6). What a snapshot means is
 * `artifact-store.ts`'s business; this module only moves them.
 */




/** A snapshot that expired between listing and download (GitHub answers 410). */
class ExpiredError extends Error {
}
/** The snapshots of a repository (see the module comment). */
class Snapshots {
    options;
    octokit;
    client = new artifact/* DefaultArtifactClient */.t9();
    constructor(options) {
        this.options = options;
        // The same bounded retries (5xx, network) and rate-limit waits as every other call of the job.
        this.octokit = (0,github_client/* createOctokit */.Qi)({
            token: options.token,
            owner: options.owner,
            repo: options.repo,
            baseUrl: options.apiUrl,
            logger: { warning: (message) => options.note(message, 'info'), debug: () => { } },
        });
    }
    /** Runs a call of `@actions/artifact` with the job's settings applied. */
    async actions(body) {
        return (0,shared/* withActionsEnv */.Tu)(this.options.env, body, { onLine: () => { }, echo: this.options.echoLog });
    }
    /** Snapshots of `name` across runs, newest first; expired ones are left out (with a note). `firstPageOnly`: the newest 100, quietly. */
    async list(name, firstPageOnly = false) {
        const found = [];
        try {
            for await (const page of this.octokit.paginate.iterator(this.octokit.rest.actions.listArtifactsForRepo, {
                owner: this.options.owner,
                repo: this.options.repo,
                name,
                per_page: 100,
            })) {
                for (const artifact of page.data) {
                    found.push({
                        id: artifact.id,
                        name: artifact.name,
                        runId: artifact.workflow_run?.id ?? 0,
                        createdAt: artifact.created_at ?? '',
                        expiresAt: artifact.expires_at ?? '',
                        expired: artifact.expired,
                        digest: artifact.digest ?? null,
                    });
                }
                if (firstPageOnly)
                    break;
            }
        }
        catch (error) {
            throw new shared/* StoreUnavailableError */.o2(`listing artifacts named ${name} failed: ${error.message}`);
        }
        const expired = found.filter((snapshot) => snapshot.expired);
        const live = found.filter((snapshot) => !snapshot.expired).sort((a, b) => b.id - a.id);
        if (expired.length > 0 && !firstPageOnly) {
            // Older snapshots expire as designed; one newer than every live snapshot means a rollback.
            const newestLive = live[0]?.id ?? 0;
            const newer = expired.filter((snapshot) => snapshot.id > newestLive);
            if (newer.length > 0) {
                this.options.note(`the ${newer.length} newest snapshot(s) of ${name} expired (${idList(newer)}): ${live[0] ? `what is read is the older snapshot #${live[0].id}, a rollback` : 'no snapshot of it is left'}`, 'warning');
            }
            else {
                this.options.note(`skipped ${expired.length} expired snapshot(s) of ${name}: ${idList(expired)}`, 'info');
            }
        }
        return live;
    }
    async delete(snapshot, why) {
        try {
            await this.octokit.rest.actions.deleteArtifact({
                owner: this.options.owner,
                repo: this.options.repo,
                artifact_id: snapshot.id,
            });
            this.options.note(`deleted snapshot ${snapshot.name} #${snapshot.id}: ${why}`, 'info');
        }
        catch (error) {
            this.options.note(`could not delete snapshot ${snapshot.name} #${snapshot.id} (${why}): ${error.message}`, 'info');
        }
    }
    /** Downloads `snapshot` into a fresh `folder`; throws `ExpiredError` when GitHub no longer has it. */
    async download(snapshot, folder) {
        await (0,promises_.rm)(folder, { recursive: true, force: true });
        await (0,promises_.mkdir)(folder, { recursive: true });
        const result = await this.actions(async () => {
            try {
                return await this.client.downloadArtifact(snapshot.id, {
                    path: folder,
                    ...(snapshot.digest ? { expectedHash: snapshot.digest } : {}),
                    findBy: {
                        token: this.options.token,
                        workflowRunId: snapshot.runId,
                        repositoryOwner: this.options.owner,
                        repositoryName: this.options.repo,
                    },
                });
            }
            catch (error) {
                const message = error.message;
                if (/\b410\b|expired/i.test(message) || error.status === 410) {
                    throw new ExpiredError(message);
                }
                throw new shared/* StoreUnavailableError */.o2(`downloading snapshot ${snapshot.name} #${snapshot.id} failed: ${message}`);
            }
        });
        if (result.digestMismatch) {
            throw new shared/* StoreUnavailableError */.o2(`snapshot ${snapshot.name} #${snapshot.id} arrived damaged (its sha256 does not match ${snapshot.digest}); try again`);
        }
    }
}
/** Snapshot ids for a note: the first ten, then how many more. */
function idList(snapshots) {
    const shown = snapshots.slice(0, 10).map((snapshot) => `#${snapshot.id}`);
    return snapshots.length > 10 ? `${shown.join(', ')} and ${snapshots.length - 10} more` : shown.join(', ');
}

// EXTERNAL MODULE: external "node:crypto"
var external_node_crypto_ = __webpack_require__(77598);
;// CONCATENATED MODULE: ./src/adapters/stores/artifact-trail.ts
/**
 * The audit trail inside the artifact store's snapshots, kept incrementally so that a loop's
 * artifacts grow with its iterations, not with their square (issue 13, point 6).
 *
 * Each snapshot holds `trail-manifest.json`: the trail's files as they were at that save (size,
 * sha256) and the parts each is made of, in order: `[artifact id, bytes]`, where the snapshot
 * `artifact` holds those bytes under `trail/<path>` (id 0 in a stored manifest: the snapshot itself).
 * The manifest lists only the files that differ from an earlier snapshot's trail (`base`); a restore
 * applies it on that one's, down to a manifest with no base that lists the whole trail.
 * A save uploads only what the snapshot it builds on does not hold already: a new or rewritten file
 * whole, and for a file that grew from the base's content (the journey log is append-only) only the
 * bytes past the base's end. Parts held in a snapshot that is gone, about to be replaced or about to
 * expire are uploaded again from the local copy, from the first such part to the file's end, so a
 * manifest never leans on an artifact that is going away; for the same reason `base` is never such a
 * snapshot, nor one whose own lineage holds one (when no snapshot qualifies, the manifest lists the
 * whole trail again: about once per retention period).
 *
 * Snapshots from before the manifest carry the whole trail under `audit/`: read as one part per file.
 */



const TRAIL_MANIFEST = 'trail-manifest.json';
/** Where a snapshot keeps the trail bytes it holds itself. */
const TRAIL_FOLDER = 'trail';
/** Where snapshots from before the manifest kept the whole trail. */
const LEGACY_FOLDER = 'audit';
const EMPTY_TRAIL = { files: {} };
/**
 * The manifest a downloaded snapshot (its folder, its artifact id) stores, its own parts named by
 * `selfId`. A manifest that does not parse, or names a path that would leave the trail folder, is refused.
 */
async function readStoredTrail(folder, selfId) {
    const text = await (0,promises_.readFile)((0,external_node_path_.join)(folder, TRAIL_MANIFEST), 'utf8').catch(() => null);
    if (text === null)
        return { base: null, files: (await legacyTrail(folder, selfId)).files };
    const raw = JSON.parse(text);
    if (!raw || typeof raw.files !== 'object' || raw.files === null)
        throw new Error(`${TRAIL_MANIFEST} lists no files`);
    if (raw.base !== null && !(Number.isSafeInteger(raw.base) && raw.base > 0)) {
        throw new Error(`${TRAIL_MANIFEST}: base ${JSON.stringify(raw.base)} is not an artifact id`);
    }
    const files = {};
    for (const [path, value] of Object.entries(raw.files)) {
        if (!isSafePath(path))
            throw new Error(`${TRAIL_MANIFEST}: the path ${JSON.stringify(path)} is not a plain relative path`);
        if (value === null) {
            files[path] = null;
            continue;
        }
        const parts = Array.isArray(value?.parts) ? value.parts : null;
        if (!Number.isSafeInteger(value?.size) ||
            typeof value?.sha256 !== 'string' ||
            !parts?.every((part) => Array.isArray(part) && part.length === 2 && part.every((n) => Number.isSafeInteger(n) && n >= 0))) {
            throw new Error(`${TRAIL_MANIFEST}: the entry for ${JSON.stringify(path)} is malformed`);
        }
        files[path] = {
            size: value.size,
            sha256: value.sha256,
            parts: parts.map(([artifact, bytes]) => [artifact === 0 ? selfId : artifact, bytes]),
        };
    }
    return { base: raw.base, files };
}
async function legacyTrail(folder, selfId) {
    const source = (0,external_node_path_.join)(folder, LEGACY_FOLDER);
    const files = {};
    for (const file of await listFiles(source)) {
        const content = await (0,promises_.readFile)(file);
        files[toTrailPath((0,external_node_path_.relative)(source, file))] = {
            size: content.length,
            sha256: digest(content),
            parts: [[selfId, content.length]],
        };
    }
    return { files };
}
/**
 * The whole trail of snapshot `id`: its stored manifest applied on its base's trail, down the lineage
 * to a whole one. `open` reads a snapshot's stored manifest, or null when the snapshot is gone (the
 * lineage is then cut there: `complete` false). The result is remembered in `known`; the lineage's
 * intermediate trails are not (a long loop's would take memory in the square of its iterations).
 */
async function resolveTrail(id, open, known) {
    const remembered = known.get(id);
    if (remembered)
        return remembered;
    const chain = [];
    let start = { trail: EMPTY_TRAIL, lineage: [], complete: false };
    let next = id;
    while (next !== null) {
        const found = known.get(next);
        if (found) {
            start = found;
            break;
        }
        if (chain.some((link) => link.id === next))
            break;
        const stored = await open(next);
        if (!stored)
            break;
        chain.push({ id: next, stored });
        if (stored.base === null)
            start = { trail: EMPTY_TRAIL, lineage: [], complete: true };
        next = stored.base;
    }
    // One copy, changed in place from the oldest manifest to the newest (`known`'s trails stay as they are).
    const files = { ...start.trail.files };
    let complete = start.complete;
    for (const link of chain.reverse()) {
        if (link.stored.base === null) {
            for (const path of Object.keys(files))
                delete files[path];
            complete = true;
        }
        for (const [path, entry] of Object.entries(link.stored.files)) {
            if (entry === null)
                delete files[path];
            else
                files[path] = entry;
        }
    }
    const lineage = [...chain.map((link) => link.id).reverse(), ...start.lineage];
    const resolved = { trail: { files }, lineage, complete };
    known.set(id, resolved);
    return resolved;
}
/**
 * The snapshot a save's manifest should build on: the newest of `base`'s lineage that stays, with all
 * its own lineage (none of them `doomed`); null when there is none (the manifest then lists the whole
 * trail).
 */
function chooseAnchor(base, doomed) {
    if (!base?.complete)
        return null;
    let anchor = null;
    for (let index = base.lineage.length - 1; index >= 0 && !doomed(base.lineage[index]); index--) {
        anchor = base.lineage[index];
    }
    return anchor;
}
/**
 * What a save stores for `trail` (its own parts as id 0): the files that differ from the trail of
 * `anchor` (see `chooseAnchor`), or the whole trail without one. So the manifest too grows with what
 * changed, not with the trail.
 */
function storedTrailFor(trail, anchor) {
    if (!anchor)
        return { base: null, files: trail.files };
    const files = {};
    for (const [path, entry] of Object.entries(trail.files)) {
        if (JSON.stringify(entry) !== JSON.stringify(anchor.trail.files[path]))
            files[path] = entry;
    }
    for (const path of Object.keys(anchor.trail.files))
        if (!(path in trail.files))
            files[path] = null;
    return { base: anchor.id, files };
}
/**
 * Stages this save's share of the trail in `folder`: for each file of `auditDir`, the bytes that
 * `base` does not already keep in a snapshot that stays (`doomed` names those that do not), under
 * `trail/`. Returns the manifest to write beside them (its own parts as id 0) and the bytes staged.
 */
async function stageTrail(auditDir, base, doomed, folder) {
    const files = {};
    let stagedBytes = 0;
    for (const file of await listFiles(auditDir)) {
        const path = toTrailPath((0,external_node_path_.relative)(auditDir, file));
        const content = await (0,promises_.readFile)(file);
        const known = base.files[path];
        let kept = [];
        if (known && content.length >= known.size && digest(content.subarray(0, known.size)) === known.sha256) {
            const firstDoomed = known.parts.findIndex(([artifact]) => doomed(artifact));
            kept = firstDoomed === -1 ? known.parts : known.parts.slice(0, firstDoomed);
        }
        const keptBytes = kept.reduce((sum, [, bytes]) => sum + bytes, 0);
        const parts = [...kept];
        if (keptBytes < content.length) {
            const target = (0,external_node_path_.join)(folder, TRAIL_FOLDER, ...path.split('/'));
            await (0,promises_.mkdir)((0,external_node_path_.join)(target, '..'), { recursive: true });
            await (0,promises_.writeFile)(target, content.subarray(keptBytes));
            parts.push([0, content.length - keptBytes]);
            stagedBytes += content.length - keptBytes;
        }
        files[path] = { size: content.length, sha256: digest(content), parts };
    }
    return { manifest: { files }, stagedBytes };
}
/** The snapshots (artifact ids) a manifest's files are kept in. */
function snapshotsOf(manifest) {
    return [...new Set(Object.values(manifest.files).flatMap((entry) => entry.parts.map(([artifact]) => artifact)))];
}
/**
 * Writes the manifest's files into `dir` from the downloaded snapshot folders (`folders`: artifact id
 * to folder; an id missing there was lost). A file with a lost part, or whose bytes do not add up to
 * its recorded sha256, is left out and named in `lost`.
 */
async function assembleTrail(manifest, folders, dir) {
    const lost = [];
    let restored = 0;
    for (const [path, entry] of Object.entries(manifest.files)) {
        const pieces = [];
        for (const [artifact, bytes] of entry.parts) {
            const folder = folders.get(artifact);
            const piece = folder ? await readPart(folder, path) : null;
            if (!piece || piece.length !== bytes)
                break;
            pieces.push(piece);
        }
        const content = Buffer.concat(pieces);
        if (pieces.length !== entry.parts.length || content.length !== entry.size || digest(content) !== entry.sha256) {
            lost.push(path);
            continue;
        }
        const target = (0,external_node_path_.join)(dir, ...path.split('/'));
        await (0,promises_.mkdir)((0,external_node_path_.join)(target, '..'), { recursive: true });
        await (0,promises_.writeFile)(target, content);
        restored++;
    }
    return { restored, lost };
}
/** A snapshot's bytes of `path`: under `trail/`, or under `audit/` in a snapshot from before the manifest. */
async function readPart(folder, path) {
    const segments = path.split('/');
    return (0,promises_.readFile)((0,external_node_path_.join)(folder, TRAIL_FOLDER, ...segments)).catch(() => (0,promises_.readFile)((0,external_node_path_.join)(folder, LEGACY_FOLDER, ...segments)).catch(() => null));
}
/** The stored manifest's text (this snapshot's own parts as id 0: its id is known only after the upload). */
function storedTrailText(stored) {
    return `${JSON.stringify(stored)}\n`;
}
function digest(content) {
    return (0,external_node_crypto_.createHash)('sha256').update(content).digest('base64url');
}
function toTrailPath(relativePath) {
    return relativePath.split(external_node_path_.sep).join('/');
}
/** A relative path of plain segments: a manifest cannot make a restore write outside the trail folder. */
function isSafePath(path) {
    return (path.length > 0 &&
        path !== '__proto__' &&
        !path.includes('\\') &&
        !path.includes('\0') &&
        path.split('/').every((segment) => segment !== '' && segment !== '.' && segment !== '..'));
}
async function isDirectory(path) {
    return (0,promises_.stat)(path).then((info) => info.isDirectory(), () => false);
}
/** The files under `folder` (none when it does not exist). */
async function listFiles(folder) {
    const entries = await (0,promises_.readdir)(folder, { recursive: true, withFileTypes: true }).catch(() => []);
    return entries.filter((entry) => entry.isFile()).map((entry) => (0,external_node_path_.join)(entry.parentPath, entry.name));
}

;// CONCATENATED MODULE: ./src/adapters/stores/artifact-store.ts
/**
 * The `artifact` store: every save uploads a snapshot artifact `loop-state-<loop>` (the state, its
 * sidecar and, when given, the loop's audit trail) through the real `@actions/artifact` (v6); a load
 * finds the newest unexpired snapshot of that name across runs through the REST API
 * (`GET /repos/{owner}/{repo}/actions/artifacts?name=`) and downloads it with `@actions/artifact`.
 * Expired snapshots (listed with `expired: true`, or a 410 on download) are skipped with a note.
 *
 * Version: the artifact id. Compare-and-swap is check, upload, then check again: before uploading, the
 * newest snapshot must be the one the caller read; after uploading, of all snapshots newer than that
 * one, the oldest (lowest id: GitHub's ids increase) wins and every other writer deletes its upload and
 * gets a `StoreConflictError`. Two writers that read the same version can therefore not both win. The
 * window left: a reader that lists between a loser's upload and its delete may read the loser's
 * snapshot. In the action the artifact is a mirror and the cache decides (`auto`), and the iteration is
 * claimed in the dispatch inputs besides.
 *
 * Artifact names are unique within a workflow run, so a second save in the same run deletes the run's
 * earlier snapshot first (as `upload-artifact`'s `overwrite` does); the snapshots of earlier runs stay.
 *
 * The audit trail is kept in parts (`artifact-trail.ts`): a snapshot uploads only the trail bytes the
 * snapshot it builds on does not keep (new files, the journey log's new lines) and a manifest of what
 * changed, naming the earlier snapshots that hold the rest; `restoreAudit` gathers them on a fresh
 * runner. So each save uploads about one iteration's worth and a loop's artifacts grow with its
 * iterations, not with their square. Nothing is pruned that a manifest leans on: the only deletions
 * are a race's loser (nobody builds on it) and a run's replaced snapshot, whose parts the replacing
 * save uploads again, as it does the parts of a snapshot in the last quarter of its retention. A
 * snapshot that expired anyway costs the files only it held (a note says which); the state, always
 * whole in the newest snapshot, is not affected, and the next save from a runner that still has those
 * files uploads them again.
 *
 * `@actions/artifact` downloads through `@actions/github`'s Octokit, which fixes its API base URL from
 * `GITHUB_API_URL` when first loaded: on a runner that is the `apiUrl` given here.
 */






/** The longest artifact name this store makes before hashing the loop part. */
const MAX_NAME = 200;
/** The `artifact` store (see the module comment). */
class ArtifactStore {
    options;
    kind = 'artifact';
    /** Notes about what the store skipped or cleaned up, newest last. */
    notes = [];
    snapshots;
    /** What is known of snapshots read so far, by artifact id (a snapshot never changes). */
    stored = new Map();
    resolved = new Map();
    constructor(options) {
        this.options = options;
        const [owner, repo, extra] = options.repository.split('/');
        if (!owner || !repo || extra !== undefined) {
            throw new Error(`ArtifactStore: repository ${JSON.stringify(options.repository)} is invalid: expected owner/name`);
        }
        if (!options.token)
            throw new Error('ArtifactStore: a token is required to read artifacts across runs');
        if (!Number.isSafeInteger(options.runId) || options.runId <= 0) {
            throw new Error(`ArtifactStore: runId ${options.runId} is invalid: expected the workflow run's positive id`);
        }
        this.snapshots = new Snapshots({
            token: options.token,
            owner,
            repo,
            apiUrl: options.apiUrl,
            env: options.env ?? {},
            echoLog: options.echoLog ?? true,
            note: (message, level) => this.note(message, level),
        });
    }
    /** The artifact name of the loop's snapshots. */
    artifactName(loopId) {
        const encoded = (0,shared/* encodeLoopId */.Oi)(loopId);
        return encoded.length + 20 <= MAX_NAME ? `loop-state-${encoded}` : `loop-state-~${(0,shared/* shortHash */.BC)(loopId)}`;
    }
    quarantineName(loopId) {
        return this.artifactName(loopId).replace(/^loop-state-/, 'loop-quarantine-');
    }
    describe(loopId) {
        return `artifact ${this.artifactName(loopId)} in ${this.options.repository} (newest unexpired snapshot across runs)`;
    }
    async load(loopId) {
        (0,shared/* checkLoopId */.aK)(loopId);
        const head = await this.downloadNewest(loopId);
        if (!head || head.meta?.tombstone)
            return null;
        return this.read(loopId, head);
    }
    /**
     * Brings the audit trail of the loop's newest snapshot into `dir` when `dir` holds no file yet (a
     * fresh runner), gathering its parts from the earlier snapshots its manifest names, so the trail
     * accumulates across jobs. A file whose part is in a snapshot that expired or was deleted is left out
     * with a note (the rest is restored). Returns how many files were restored (0 when `dir` already has
     * files or no snapshot has a trail).
     */
    async restoreAudit(loopId, dir) {
        (0,shared/* checkLoopId */.aK)(loopId);
        if ((await isDirectory(dir)) && (await listFiles(dir)).length > 0)
            return 0;
        const head = await this.downloadNewest(loopId);
        if (!head)
            return 0;
        const live = new Map((await this.snapshots.list(head.snapshot.name)).map((s) => [s.id, s]));
        const { trail, complete } = await this.resolveTrail(head.snapshot, live);
        const folders = new Map();
        for (const id of snapshotsOf(trail)) {
            const folder = this.stored.get(id)?.folder ?? (live.has(id) ? await this.tryDownload(live.get(id)) : null);
            if (folder)
                folders.set(id, folder);
        }
        const { restored, lost } = await assembleTrail(trail, folders, dir);
        const where = `snapshot ${head.snapshot.name} #${head.snapshot.id}`;
        const cut = `the trail of ${where} leans on a snapshot that expired or was deleted: older files are not restored`;
        if (!complete)
            this.note(cut, 'warning');
        if (lost.length > 0) {
            this.note(`${lost.length} audit trail file(s) of ${where} could not be restored (a snapshot holding part of them expired or was deleted): ${lost.slice(0, 10).join(', ')}${lost.length > 10 ? ', …' : ''}`, 'warning');
        }
        return restored;
    }
    /**
     * Writes `state` (or, with null, a tombstone: "no state from here on") on top of whatever snapshot is
     * newest, for the `auto` store, whose cache has already decided the compare-and-swap.
     */
    async mirror(loopId, state) {
        (0,shared/* checkLoopId */.aK)(loopId);
        const head = (await this.snapshots.list(this.artifactName(loopId)))[0] ?? null;
        if (state === null)
            return this.upload(loopId, head, null, undefined);
        const valid = (0,shared/* checkStateToSave */.yU)(loopId, state);
        return this.upload(loopId, head, JSON.stringify(valid, null, 2), valid.iteration);
    }
    async read(loopId, head) {
        const parsed = (0,shared/* parseStoredState */.Cm)(head.stateText ?? '', `artifact ${head.snapshot.name} #${head.snapshot.id}`);
        if (parsed.kind === 'future')
            throw parsed.error;
        if (parsed.kind === 'invalid')
            throw await this.quarantine(loopId, head, parsed.reason);
        return { state: parsed.state, version: String(head.snapshot.id) };
    }
    async save(loopId, state, expectedVersion) {
        (0,shared/* checkLoopId */.aK)(loopId);
        const valid = (0,shared/* checkStateToSave */.yU)(loopId, state);
        const base = await this.checkBase(loopId, expectedVersion);
        return this.upload(loopId, base, JSON.stringify(valid, null, 2), valid.iteration);
    }
    async reset(loopId) {
        (0,shared/* checkLoopId */.aK)(loopId);
        const head = await this.downloadNewest(loopId);
        if (!head || head.meta?.tombstone)
            return;
        const parsed = (0,shared/* parseStoredState */.Cm)(head.stateText ?? '', `artifact ${head.snapshot.name} #${head.snapshot.id}`);
        if (parsed.kind !== 'invalid')
            return;
        await this.quarantine(loopId, head, parsed.reason);
        await this.upload(loopId, head.snapshot, null, undefined);
    }
    /** Checks the caller's version against the newest snapshot; returns the snapshot to build on. */
    async checkBase(loopId, expectedVersion) {
        const head = (await this.snapshots.list(this.artifactName(loopId)))[0] ?? null;
        if (expectedVersion === null) {
            if (!head)
                return null;
            const downloaded = await this.download(head);
            if (downloaded.meta?.tombstone)
                return head;
            const parsed = (0,shared/* parseStoredState */.Cm)(downloaded.stateText ?? '', `artifact ${head.name} #${head.id}`);
            if (parsed.kind === 'future')
                throw parsed.error;
            if (parsed.kind === 'invalid')
                throw await this.quarantine(loopId, downloaded, parsed.reason);
            throw new store/* StoreConflictError */.yn(`loop ${loopId}: expected no stored state, but snapshot #${head.id} exists; load it first`);
        }
        if (!head) {
            throw new store/* StoreConflictError */.yn(`loop ${loopId}: expected snapshot #${expectedVersion}, but none is left (expired?)`);
        }
        if (String(head.id) !== expectedVersion) {
            const marker = (await this.snapshots.list(this.quarantineName(loopId)))[0];
            if (marker && marker.id > head.id) {
                throw new store/* StateQuarantinedError */.MD(`loop ${loopId}: snapshot #${head.id} is quarantined (artifact ${marker.name} #${marker.id}); run reset before saving`, `artifact ${marker.name} #${marker.id}`);
            }
            throw new store/* StoreConflictError */.yn(`loop ${loopId}: expected snapshot #${expectedVersion}, but #${head.id} is the newest (another writer saved first)`);
        }
        return head;
    }
    async upload(loopId, base, stateText, iteration) {
        const name = this.artifactName(loopId);
        const folder = (0,external_node_path_.join)(this.options.workDir, 'upload', name);
        await (0,promises_.rm)(folder, { recursive: true, force: true });
        await (0,promises_.mkdir)(folder, { recursive: true });
        const meta = {
            loopId,
            revision: (base?.id ?? 0) + 1,
            runId: String(this.options.runId),
            runAttempt: this.options.env?.GITHUB_RUN_ATTEMPT ?? '1',
            savedAt: new Date().toISOString(),
            tombstone: stateText === null,
            ...(iteration === undefined ? {} : { iteration }),
        };
        await (0,promises_.writeFile)((0,external_node_path_.join)(folder, shared/* META_FILE */.fg), `${JSON.stringify(meta, null, 2)}\n`);
        if (stateText !== null)
            await (0,promises_.writeFile)((0,external_node_path_.join)(folder, shared/* STATE_FILE */.bv), `${stateText}\n`);
        const snapshots = await this.snapshots.list(name);
        // Names are unique per run: a second save in this run replaces the run's earlier snapshot.
        const sameRun = snapshots.find((snapshot) => snapshot.runId === this.options.runId);
        const audit = this.options.auditDir?.(loopId);
        let trail = null;
        if (audit) {
            // Only what the base does not keep in a snapshot that stays: the parts of the snapshot about to
            // be replaced, of one gone or expiring soon, are uploaded again (see artifact-trail.ts).
            const live = new Map(snapshots.map((snapshot) => [snapshot.id, snapshot]));
            const doomed = (id) => id === sameRun?.id || !live.has(id) || expiresSoon(live.get(id));
            const built = base ? await this.resolveTrail(base, live) : null;
            const { manifest } = await stageTrail(audit, built?.trail ?? EMPTY_TRAIL, doomed, folder);
            const anchorId = chooseAnchor(built, doomed);
            const anchor = anchorId === null ? null : live.get(anchorId);
            trail = storedTrailFor(manifest, anchor ? { id: anchor.id, trail: (await this.resolveTrail(anchor, live)).trail } : null);
            await (0,promises_.writeFile)((0,external_node_path_.join)(folder, TRAIL_MANIFEST), storedTrailText(trail));
        }
        if (sameRun)
            await this.snapshots.delete(sameRun, 'replaced by a newer save of the same run');
        const uploaded = await this.snapshots.actions(async () => {
            try {
                return await this.snapshots.client.uploadArtifact(name, await listFiles(folder), folder, {
                    ...(this.options.retentionDays ? { retentionDays: this.options.retentionDays } : {}),
                });
            }
            catch (error) {
                const message = error.message;
                if (/\(409\)|already_exists|already exists/i.test(message)) {
                    throw new store/* StoreConflictError */.yn(`loop ${loopId}: another job of run ${this.options.runId} is saving ${name}`);
                }
                throw new shared/* StoreUnavailableError */.o2(`loop ${loopId}: uploading artifact ${name} failed: ${message}`);
            }
        });
        const id = uploaded.id;
        if (!id)
            throw new shared/* StoreUnavailableError */.o2(`loop ${loopId}: uploading artifact ${name} returned no id`);
        // First writer after the base wins: the lowest id newer than the base.
        const rivals = (await this.snapshots.list(name, true)).filter((s) => s.id > (base?.id ?? 0));
        const winner = Math.min(...rivals.map((s) => s.id), id);
        if (winner !== id) {
            await this.snapshots.delete({ id, name, runId: this.options.runId, createdAt: '', expiresAt: '', expired: false, digest: null }, 'lost a race');
            throw new store/* StoreConflictError */.yn(`loop ${loopId}: snapshot #${winner} was saved on top of #${base?.id ?? 'nothing'} first; load again and decide`);
        }
        // Known without a download for this job's next save; its folder is reused by the next upload.
        if (trail)
            this.stored.set(id, { folder: null, trail: await readStoredTrail(folder, id) });
        return String(id);
    }
    /**
     * The whole trail of `snapshot`, down its lineage of manifests (see artifact-trail.ts); a snapshot
     * of the lineage that is gone cuts it (`complete` false). When a snapshot cannot be read at all, an
     * empty trail: the save then uploads the whole trail, which is always right, only bigger.
     */
    async resolveTrail(snapshot, live) {
        const open = async (id) => {
            const known = this.stored.get(id);
            if (known)
                return known.trail;
            const found = id === snapshot.id ? snapshot : live.get(id);
            return found && (await this.tryDownload(found)) !== null ? this.stored.get(id).trail : null;
        };
        try {
            return await resolveTrail(snapshot.id, open, this.resolved);
        }
        catch (error) {
            this.note(`could not read the trail of ${snapshot.name} #${snapshot.id} (${error.message}); it counts as empty`);
            return { trail: EMPTY_TRAIL, lineage: [], complete: false };
        }
    }
    /** Downloads a snapshot; its folder, or null when it expired meanwhile. */
    async tryDownload(snapshot) {
        try {
            return (await this.download(snapshot)).folder;
        }
        catch (error) {
            if (error instanceof ExpiredError)
                return null;
            throw error;
        }
    }
    note(message, level = 'info') {
        this.notes.push(message);
        this.options.onNote?.(message, level);
    }
    /** The newest readable snapshot; one that expired between listing and download is skipped. */
    async downloadNewest(loopId) {
        for (const snapshot of await this.snapshots.list(this.artifactName(loopId))) {
            try {
                return await this.download(snapshot);
            }
            catch (error) {
                if (error instanceof ExpiredError) {
                    this.note(`snapshot ${snapshot.name} #${snapshot.id} expired before it could be downloaded; trying an older one (a rollback)`, 'warning');
                    continue;
                }
                throw error;
            }
        }
        return null;
    }
    async download(snapshot) {
        const folder = (0,external_node_path_.join)(this.options.workDir, 'download', `${snapshot.name}-${snapshot.id}`);
        await this.snapshots.download(snapshot, folder);
        const stateText = await (0,promises_.readFile)((0,external_node_path_.join)(folder, shared/* STATE_FILE */.bv), 'utf8').catch(() => null);
        const metaText = await (0,promises_.readFile)((0,external_node_path_.join)(folder, shared/* META_FILE */.fg), 'utf8').catch(() => null);
        let meta = null;
        try {
            meta = metaText ? JSON.parse(metaText) : null;
        }
        catch {
            meta = null;
        }
        const trail = await readStoredTrail(folder, snapshot.id).catch((error) => {
            this.note(`the trail manifest of snapshot ${snapshot.name} #${snapshot.id} is unreadable: ${error.message}`);
            return { base: null, files: {} };
        });
        this.stored.set(snapshot.id, { folder, trail });
        return { snapshot, stateText, meta, folder, trail };
    }
    /** Keeps a bad snapshot aside (a local copy and a `loop-quarantine-` artifact) and returns the error. */
    async quarantine(loopId, head, reason) {
        const keep = (0,external_node_path_.join)(this.options.workDir, 'quarantine', `${head.snapshot.name}-${head.snapshot.id}-${Date.now()}`);
        await (0,promises_.mkdir)(keep, { recursive: true });
        for (const file of await listFiles(head.folder)) {
            const target = (0,external_node_path_.join)(keep, (0,external_node_path_.relative)(head.folder, file));
            await (0,promises_.mkdir)((0,external_node_path_.join)(target, '..'), { recursive: true });
            await (0,promises_.writeFile)(target, await (0,promises_.readFile)(file));
        }
        await (0,promises_.writeFile)((0,external_node_path_.join)(keep, 'QUARANTINED.json'), `${JSON.stringify({ loopId, snapshot: head.snapshot.id, reason, at: new Date().toISOString() }, null, 2)}\n`);
        const name = this.quarantineName(loopId);
        const marker = (await this.snapshots.list(name))[0];
        if (!marker || marker.id < head.snapshot.id) {
            const sameRun = (await this.snapshots.list(name)).find((s) => s.runId === this.options.runId);
            if (sameRun)
                await this.snapshots.delete(sameRun, 'replaced by a newer quarantine in the same run');
            await this.snapshots
                .actions(async () => this.snapshots.client.uploadArtifact(name, await listFiles(keep), keep))
                .catch((error) => this.note(`could not upload quarantine artifact ${name}: ${error.message}`, 'warning'));
        }
        return new store/* StateQuarantinedError */.MD(`loop ${loopId}: ${reason}. Snapshot #${head.snapshot.id} was quarantined (artifact ${name}; local copy ${keep}); fix or discard it, then reset the loop's state before saving`, keep);
    }
}
/** Whether a snapshot is in the last quarter of its life (GitHub's retention), so a save keeps no part in it. */
function expiresSoon(snapshot) {
    const created = Date.parse(snapshot.createdAt);
    const expires = Date.parse(snapshot.expiresAt);
    if (Number.isNaN(created) || Number.isNaN(expires))
        return false;
    return expires - Date.now() < (expires - created) / 4;
}

;// CONCATENATED MODULE: ./src/adapters/stores/auto-store.ts


/** The `auto` store (see the module comment). */
class AutoStore {
    cache;
    artifact;
    options;
    kind = 'auto';
    /** Notes about fallbacks and failed mirrors, newest last. */
    notes = [];
    constructor(cache, artifact, options = {}) {
        this.cache = cache;
        this.artifact = artifact;
        this.options = options;
    }
    describe(loopId) {
        return `${this.cache.describe(loopId)}, mirrored to ${this.artifact.describe(loopId)}`;
    }
    async load(loopId) {
        try {
            const found = await this.cache.inspect(loopId);
            if (found.kind === 'state')
                return { state: found.loaded.state, version: `cache:${found.loaded.version}` };
            if (found.kind === 'reset')
                return null;
            this.note(`the cache holds no state for loop ${loopId} (evicted or another branch's scope); reading the artifact`, 'info');
        }
        catch (error) {
            if (!(error instanceof shared/* StoreUnavailableError */.o2))
                throw error;
            this.note(`the cache could not be read (${error.message}); reading the artifact instead`, 'info');
        }
        const loaded = await this.artifact.load(loopId);
        return loaded ? { state: loaded.state, version: `artifact:${loaded.version}` } : null;
    }
    async save(loopId, state, expectedVersion) {
        let cacheVersion;
        if (expectedVersion === null || expectedVersion.startsWith('artifact:'))
            cacheVersion = null;
        else if (expectedVersion.startsWith('cache:'))
            cacheVersion = expectedVersion.slice('cache:'.length);
        else {
            throw new Error(`auto store: version ${JSON.stringify(expectedVersion)} is not one this store gave out (expected cache:<n> or artifact:<id>)`);
        }
        const saved = await this.cache.save(loopId, state, cacheVersion);
        try {
            await this.artifact.mirror(loopId, state);
        }
        catch (error) {
            this.note(`loop ${loopId}: saved to the cache, but mirroring to the artifact failed (a cache miss would read an older state): ${error.message}`, 'warning');
        }
        return `cache:${saved}`;
    }
    async reset(loopId) {
        await this.cache.reset(loopId);
        const artifactHead = await this.artifact.load(loopId).catch((error) => error);
        if (artifactHead instanceof Error && !(artifactHead instanceof store/* StateQuarantinedError */.MD)) {
            this.note(`loop ${loopId}: the cache was reset, but the artifact could not be checked (a cache miss may bring the old state back): ${artifactHead.message}`, 'warning');
            return;
        }
        if (artifactHead !== null) {
            // The artifact holds a state (or a bad one, now quarantined): mirror the reset so a later cache
            // miss does not bring the old state back.
            await this.artifact.reset(loopId);
            await this.artifact.mirror(loopId, null);
        }
    }
    note(message, level) {
        this.notes.push(message);
        this.options.onNote?.(message, level);
    }
}

// EXTERNAL MODULE: ./node_modules/@actions/cache/lib/cache.js + 91 modules
var cache = __webpack_require__(18091);
;// CONCATENATED MODULE: ./src/adapters/stores/cache-store.ts
/**
 * The `cache` store: loop state in the GitHub Actions cache, through the real `@actions/cache` (v6).
 *
 * Keys. Each save writes a new, immutable entry `loop-state-<loop>.<revision>`, where `<revision>` is
 * the revision read plus one, and restores by the prefix `loop-state-<loop>.` (the service hands back
 * the newest entry created under it). The key holds nothing but the loop and the revision, on
 * purpose: two writers that read the same revision produce the SAME key, so GitHub's rule that a key
 * can be created once decides between them; the loser's `saveCache` returns -1 and this store reports
 * a `StoreConflictError`. The run id, run attempt and a per-save nonce travel in a sidecar
 * (`loop-state.meta.json`) inside the cached folder. `<loop>` is the loop id percent-encoded so that it
 * holds no `.` (a prefix of one loop can then never match another loop's keys, as `a-` would match
 * loop `a-b`), or `~<sha256>` when the key would pass the service's 512-character limit.
 *
 * Compare-and-swap. Before writing, the store looks up the newest revision and refuses (conflict) when
 * it is not the one the caller read. The lookup and the create are not one atomic step; the window
 * between them is closed by the key design above: any writer that passed the lookup with revision R
 * creates key R+1, and only the first such create succeeds. What remains: if the newest entry R were
 * evicted while R-1 survived, a writer holding R-1 could write R again. GitHub evicts the least recently
 * used entries first, so the newest goes last; and the action also claims the iteration number in its
 * dispatch inputs, so a lost state can never run an iteration twice.
 *
 * `@actions/cache` reports most failures as a miss (restore returns undefined) or as -1 (save), and
 * writes the reason to the log. The store reads those lines (see `withActionsEnv`) so that a service
 * failure becomes a `StoreUnavailableError` instead of "no state", and every -1 is confirmed with a
 * lookup before it is called a conflict, a failure, or (when the entry turns out to be ours) a success.
 *
 * Quarantine. A stored state that fails validation is kept: the downloaded files are copied to
 * `<root>/quarantine/...` and saved under `loop-quarantine-<loop>.<revision>`, which is also the marker
 * `save` looks for; `reset` then writes a tombstone revision, after which the loop has no state.
 *
 * The `paths` given to `@actions/cache` are part of the cache version, so `root` must be the same
 * absolute path in every job (the action uses `<RUNNER_TEMP>/loop-controller-state`).
 */






/** The cache service refuses keys longer than this. */
const MAX_CACHE_KEY_LENGTH = 512;
/** The `cache` store (see the module comment for keys, compare-and-swap and quarantine). */
class CacheStore {
    kind = 'cache';
    root;
    env;
    runId;
    runAttempt;
    echoLog;
    constructor(options) {
        if (!options.root)
            throw new Error('CacheStore: `root` is required (a folder path that is the same in every job)');
        this.root = options.root;
        this.env = options.env ?? {};
        this.runId = options.runId ?? this.env.GITHUB_RUN_ID ?? 'local';
        this.runAttempt = options.runAttempt ?? this.env.GITHUB_RUN_ATTEMPT ?? '1';
        this.echoLog = options.echoLog ?? true;
    }
    /** The key prefix under which this loop's revisions live. Throws when even a hashed key cannot fit. */
    keyPrefix(loopId) {
        return `loop-state-${this.loopPart(loopId)}.`;
    }
    describe(loopId) {
        return `actions cache keys ${this.keyPrefix(loopId)}<revision> (files in ${this.folder(loopId)})`;
    }
    async load(loopId) {
        const found = await this.inspect(loopId);
        return found.kind === 'state' ? found.loaded : null;
    }
    /**
     * Like `load`, but tells an empty cache (nothing under the prefix: never saved, evicted, or another
     * scope) from a reset one (a tombstone), which the `auto` store needs to decide whether to fall back.
     */
    async inspect(loopId) {
        (0,shared/* checkLoopId */.aK)(loopId);
        const head = await this.restoreNewest(loopId);
        if (!head)
            return { kind: 'empty' };
        if (head.meta?.tombstone)
            return { kind: 'reset' };
        const parsed = (0,shared/* parseStoredState */.Cm)(head.stateText ?? '', `cache entry ${head.key}`);
        if (parsed.kind === 'future')
            throw parsed.error;
        if (parsed.kind === 'invalid')
            throw await this.quarantine(loopId, head, parsed.reason);
        return { kind: 'state', loaded: { state: parsed.state, version: String(head.revision) } };
    }
    async save(loopId, state, expectedVersion) {
        (0,shared/* checkLoopId */.aK)(loopId);
        const valid = (0,shared/* checkStateToSave */.yU)(loopId, state);
        const head = await this.lookupNewest(loopId);
        let target;
        if (expectedVersion === null) {
            if (head === null)
                target = 1;
            else {
                const restored = await this.restoreNewest(loopId);
                if (!restored) {
                    throw new store/* StoreConflictError */.yn(`${this.describe(loopId)}: the newest revision changed while saving; load again`);
                }
                if (restored.meta?.tombstone)
                    target = restored.revision + 1;
                else {
                    const parsed = (0,shared/* parseStoredState */.Cm)(restored.stateText ?? '', `cache entry ${restored.key}`);
                    if (parsed.kind === 'future')
                        throw parsed.error;
                    if (parsed.kind === 'invalid')
                        throw await this.quarantine(loopId, restored, parsed.reason);
                    throw new store/* StoreConflictError */.yn(`loop ${loopId}: expected no stored state, but the cache holds revision ${restored.revision} (${restored.key}); load it first`);
                }
            }
        }
        else {
            if (head === null) {
                throw new store/* StoreConflictError */.yn(`loop ${loopId}: expected revision ${expectedVersion}, but the cache holds none under ${this.keyPrefix(loopId)} (evicted, or another branch's scope)`);
            }
            if (String(head) !== expectedVersion) {
                const marker = await this.lookupExact(this.quarantineKey(loopId, head), this.quarantineFolder(loopId));
                if (marker) {
                    throw new store/* StateQuarantinedError */.MD(`loop ${loopId}: revision ${head} is quarantined (${marker}); run reset before saving`, marker);
                }
                throw new store/* StoreConflictError */.yn(`loop ${loopId}: expected revision ${expectedVersion}, but revision ${head} is the newest (another writer saved first)`);
            }
            target = head + 1;
        }
        const nonce = (0,external_node_crypto_.randomUUID)();
        await this.commit(loopId, target, nonce, this.revisionFiles(loopId, target, nonce, JSON.stringify(valid, null, 2), valid.iteration));
        return String(target);
    }
    async reset(loopId) {
        (0,shared/* checkLoopId */.aK)(loopId);
        const head = await this.restoreNewest(loopId);
        if (!head || head.meta?.tombstone)
            return;
        const parsed = (0,shared/* parseStoredState */.Cm)(head.stateText ?? '', `cache entry ${head.key}`);
        if (parsed.kind !== 'invalid')
            return;
        // Make sure the bad revision is kept aside before moving past it.
        await this.quarantine(loopId, head, parsed.reason);
        const nonce = (0,external_node_crypto_.randomUUID)();
        const target = head.revision + 1;
        await this.commit(loopId, target, nonce, this.revisionFiles(loopId, target, nonce, null, undefined));
    }
    loopPart(loopId) {
        const encoded = (0,shared/* encodeLoopId */.Oi)(loopId);
        // Room for `loop-quarantine-`/`loop-state-`, the dot, and a revision of up to 15 digits.
        if (`loop-quarantine-${encoded}.`.length + 15 <= MAX_CACHE_KEY_LENGTH)
            return encoded;
        return `~${(0,shared/* shortHash */.BC)(loopId)}`;
    }
    key(loopId, revision) {
        const key = `${this.keyPrefix(loopId)}${revision}`;
        if (key.length > MAX_CACHE_KEY_LENGTH) {
            throw new Error(`cache key ${key.slice(0, 60)}… is ${key.length} characters; the limit is ${MAX_CACHE_KEY_LENGTH}`);
        }
        return key;
    }
    quarantineKey(loopId, revision) {
        return `loop-quarantine-${this.loopPart(loopId)}.${revision}`;
    }
    folder(loopId) {
        return (0,external_node_path_.join)(this.root, this.loopPart(loopId));
    }
    quarantineFolder(loopId) {
        return (0,external_node_path_.join)(this.root, 'quarantine', this.loopPart(loopId));
    }
    revisionOf(loopId, key) {
        const revision = Number(key.slice(this.keyPrefix(loopId).length));
        if (!Number.isSafeInteger(revision) || revision < 1) {
            throw new Error(`cache key ${key} does not end in a revision number after ${this.keyPrefix(loopId)}`);
        }
        return revision;
    }
    /** Runs `@actions/cache` with this store's env and collects the lines it logs. */
    async call(body) {
        const lines = [];
        const result = await (0,shared/* withActionsEnv */.Tu)(this.env, body, { onLine: (line) => lines.push(line), echo: this.echoLog });
        return { result, lines };
    }
    failure(lines, pattern) {
        return lines.find((line) => pattern.test(line)) ?? null;
    }
    /** The newest revision's number without downloading it, or null when the loop has none. */
    async lookupNewest(loopId) {
        const prefix = this.keyPrefix(loopId);
        const { result, lines } = await this.call(() => cache/* restoreCache */.P3([this.folder(loopId)], `${prefix}newest`, [prefix], { lookupOnly: true }));
        const failed = this.failure(lines, /^::(warning|error)::Failed to restore/);
        if (failed)
            throw new shared/* StoreUnavailableError */.o2(`cache lookup of ${prefix}* failed: ${stripCommand(failed)}`);
        return result ? this.revisionOf(loopId, result) : null;
    }
    async lookupExact(key, folder) {
        const { result } = await this.call(() => cache/* restoreCache */.P3([folder], key, [], { lookupOnly: true }));
        return result ? `cache key ${result}` : null;
    }
    /**
     * Downloads the newest revision into the loop's folder and reads it, in one locked step (a store in
     * the same process acting as another job may use the same folder next).
     */
    async restoreNewest(loopId) {
        const prefix = this.keyPrefix(loopId);
        const folder = this.folder(loopId);
        const { result, lines } = await this.call(async () => {
            // An earlier revision's files must never be mistaken for this download's.
            await (0,promises_.rm)(folder, { recursive: true, force: true });
            const key = await cache/* restoreCache */.P3([folder], `${prefix}newest`, [prefix]);
            if (!key)
                return null;
            const stateText = await (0,promises_.readFile)((0,external_node_path_.join)(folder, shared/* STATE_FILE */.bv), 'utf8').catch(() => null);
            const metaText = await (0,promises_.readFile)((0,external_node_path_.join)(folder, shared/* META_FILE */.fg), 'utf8').catch(() => null);
            return { key, stateText, metaText };
        });
        const failed = this.failure(lines, /^::(warning|error)::Failed to restore/);
        if (failed) {
            throw new shared/* StoreUnavailableError */.o2(`cache restore of ${prefix}* failed (nothing was changed; try again): ${stripCommand(failed)}`);
        }
        if (!result)
            return null;
        let meta = null;
        try {
            meta = result.metaText ? JSON.parse(result.metaText) : null;
        }
        catch {
            meta = null;
        }
        return {
            revision: this.revisionOf(loopId, result.key),
            key: result.key,
            meta,
            stateText: result.stateText,
            metaText: result.metaText,
        };
    }
    /** The files of a revision: the sidecar, and the state unless it is a tombstone. */
    revisionFiles(loopId, revision, nonce, stateText, iteration) {
        const meta = {
            loopId,
            revision,
            runId: this.runId,
            runAttempt: this.runAttempt,
            savedAt: new Date().toISOString(),
            tombstone: stateText === null,
            ...(iteration === undefined ? {} : { iteration }),
            nonce,
        };
        const files = new Map([[shared/* META_FILE */.fg, `${JSON.stringify(meta, null, 2)}\n`]]);
        if (stateText !== null)
            files.set(shared/* STATE_FILE */.bv, `${stateText}\n`);
        return files;
    }
    /** Writes `files` into a fresh `folder` and saves it under `key`, in one locked step. */
    async saveFolder(folder, key, files) {
        return this.call(async () => {
            await (0,promises_.rm)(folder, { recursive: true, force: true });
            await (0,promises_.mkdir)(folder, { recursive: true });
            for (const [name, text] of files)
                await (0,promises_.writeFile)((0,external_node_path_.join)(folder, name), text);
            return cache/* saveCache */.Io([folder], key);
        });
    }
    /** Saves the prepared folder as revision `target`; a -1 from `saveCache` is confirmed by a lookup. */
    async commit(loopId, target, nonce, files) {
        const key = this.key(loopId, target);
        const { result, lines } = await this.saveFolder(this.folder(loopId), key, files);
        if (result !== -1)
            return;
        const reason = stripCommand(this.failure(lines, /Failed to reserve cache|Failed to save|reservation failed|upload failed/i) ??
            'saveCache returned -1');
        const refused = /\(409\)|already_exists|already exists/i.test(lines.join('\n'));
        // Confirm: did revision `target` become visible, and whose is it?
        const newest = await this.lookupNewest(loopId);
        if (newest !== null && newest >= target) {
            if (newest === target && !refused) {
                const restored = await this.restoreNewest(loopId);
                const theirs = restored?.meta;
                if (restored?.revision === target && theirs?.nonce === nonce)
                    return;
            }
            throw new store/* StoreConflictError */.yn(`loop ${loopId}: another writer saved revision ${target} first (${key}); load again and decide`);
        }
        if (refused) {
            throw new store/* StoreConflictError */.yn(`loop ${loopId}: the cache refused ${key} because another writer is creating it; load again and decide`);
        }
        throw new shared/* StoreUnavailableError */.o2(`loop ${loopId}: the cache did not persist ${key} (${reason}); nothing was saved`);
    }
    /** Keeps a bad revision aside (local copy and a quarantine cache entry) and returns the error to throw. */
    async quarantine(loopId, head, reason) {
        const keep = (0,external_node_path_.join)(this.root, 'quarantine-kept', this.loopPart(loopId), `${head.revision}-${Date.now()}`);
        const files = new Map();
        if (head.stateText !== null)
            files.set(shared/* STATE_FILE */.bv, head.stateText);
        if (head.metaText !== null)
            files.set(shared/* META_FILE */.fg, head.metaText);
        files.set('QUARANTINED.json', `${JSON.stringify({ loopId, revision: head.revision, key: head.key, reason, at: new Date().toISOString() }, null, 2)}\n`);
        await (0,promises_.mkdir)(keep, { recursive: true });
        for (const [name, text] of files)
            await (0,promises_.writeFile)((0,external_node_path_.join)(keep, name), text);
        const key = this.quarantineKey(loopId, head.revision);
        const staging = this.quarantineFolder(loopId);
        // The quarantine entry is the marker other jobs' saves look for; if it exists already, keep it.
        if (!(await this.lookupExact(key, staging)))
            await this.saveFolder(staging, key, files);
        const where = `${key} (the bad entry ${head.key} is kept; local copy ${keep})`;
        return new store/* StateQuarantinedError */.MD(`loop ${loopId}: ${reason}. The state was quarantined as ${where}; fix or discard it, then reset the loop's state before saving`, keep);
    }
}
function stripCommand(line) {
    return line.replace(/^::[a-z]+::/, '');
}

// EXTERNAL MODULE: ./src/adapters/stores/git-store.ts + 1 modules
var git_store = __webpack_require__(36738);
;// CONCATENATED MODULE: ./src/adapters/stores/index.ts
/** The stores that survive GitHub's disposable runners; the `file` store lives beside. */







/***/ })

};

//# sourceMappingURL=699.index.js.map