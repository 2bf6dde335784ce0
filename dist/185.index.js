export const id = 185;
export const ids = [185];
export const modules = {

/***/ 13185:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {


// EXPORTS
__webpack_require__.d(__webpack_exports__, {
  ArtifactStore: () => (/* reexport */ ArtifactStore),
  AutoStore: () => (/* reexport */ AutoStore),
  CacheStore: () => (/* reexport */ CacheStore),
  GitStore: () => (/* reexport */ GitStore)
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
// EXTERNAL MODULE: ./node_modules/@actions/github/lib/github.js
var github = __webpack_require__(61351);
// EXTERNAL MODULE: external "node:crypto"
var external_node_crypto_ = __webpack_require__(77598);
// EXTERNAL MODULE: ./node_modules/zod/v4/classic/errors.js
var errors = __webpack_require__(961);
// EXTERNAL MODULE: ./src/domain/migrations.ts
var migrations = __webpack_require__(46419);
// EXTERNAL MODULE: ./src/domain/state.ts
var domain_state = __webpack_require__(10781);
;// CONCATENATED MODULE: ./src/adapters/stores/shared.ts
/**
 * Helpers shared by the stores that survive GitHub (cache, artifact, git, auto): state validation with
 * the future-version check, loop id checks, and the lock that lets one process drive `@actions/*` as
 * several jobs (those packages read their settings from `process.env` at call time).
 */





/** The state file's name inside every store's folder (cache path, artifact, git folder). */
const STATE_FILE = 'loop-state.json';
/** Who wrote a revision and when; kept beside the state so the state itself stays the domain's. */
const META_FILE = 'loop-state.meta.json';
/**
 * Thrown when a store's service failed (5xx, 429, a broken download): nothing was persisted or nothing
 * could be read, and it is not a compare-and-swap conflict. The caller may retry later; no state is lost.
 */
class StoreUnavailableError extends Error {
    name = 'StoreUnavailableError';
}
/** The longest loop id the state schema accepts; stores refuse longer ones before touching a service. */
const MAX_LOOP_ID_LENGTH = 200;
/** Checks a loop id before it becomes part of a key, an artifact name or a folder. */
function checkLoopId(loopId) {
    if (typeof loopId !== 'string' || loopId.length === 0 || loopId.length > MAX_LOOP_ID_LENGTH) {
        const shown = typeof loopId === 'string' ? `${loopId.slice(0, 40)}${loopId.length > 40 ? '…' : ''}` : loopId;
        throw new Error(`loop id ${JSON.stringify(shown)} (length ${typeof loopId === 'string' ? loopId.length : 'n/a'}) is invalid: expected 1 to ${MAX_LOOP_ID_LENGTH} characters`);
    }
    if (loopId.includes(',') || [...loopId].some((char) => char.charCodeAt(0) < 0x20)) {
        throw new Error(`loop id ${JSON.stringify(loopId)} is invalid: expected no control characters and no commas`);
    }
}
/**
 * A loop id made safe for a path segment or an artifact name: letters, digits, `_` and `-` stay, all
 * else is percent-encoded (so the result never holds `.` or `/`, which the stores use as separators).
 */
function encodeLoopId(loopId) {
    return Array.from(Buffer.from(loopId, 'utf8'))
        .map((byte) => {
        const char = String.fromCharCode(byte);
        return /[A-Za-z0-9_-]/.test(char) ? char : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
    })
        .join('');
}
/** A short stable digest, for names that would otherwise be too long. */
function shortHash(text) {
    return (0,external_node_crypto_.createHash)('sha256').update(text).digest('hex').slice(0, 40);
}
/**
 * Validates stored text as a loop state through `migrateState` (older schema versions are migrated).
 * A `schemaVersion` above this code's is reported as `future` (refused, never quarantined: a newer
 * release can read it); anything else that fails is `invalid`.
 */
function parseStoredState(text, where, toolVersion = 'this release') {
    let raw;
    try {
        raw = JSON.parse(text);
    }
    catch (error) {
        return { kind: 'invalid', reason: `${where} is not JSON: ${error.message}` };
    }
    try {
        return { kind: 'valid', state: (0,migrations/* migrateState */.P)(raw, toolVersion, where).state };
    }
    catch (error) {
        if (error instanceof store/* StateFromTheFutureError */.UX)
            return { kind: 'future', error };
        if (error instanceof migrations/* StateValidationError */.NY || error instanceof errors/* ZodError */.G) {
            const issues = error.issues
                .slice(0, 5)
                .map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`)
                .join('; ');
            return { kind: 'invalid', reason: `${where} is not a valid loop state (${issues})` };
        }
        throw error;
    }
}
/** Validates a state before it is written: a store never writes what it could not read back. */
function checkStateToSave(loopId, state) {
    const result = domain_state/* loopStateSchema */.lF.safeParse(state);
    if (!result.success) {
        const issues = result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ');
        throw new Error(`refusing to save loop ${JSON.stringify(loopId)}: the state is invalid (${issues})`);
    }
    if (result.data.loopId !== loopId) {
        throw new Error(`refusing to save loop ${JSON.stringify(loopId)}: the state belongs to loop ${JSON.stringify(result.data.loopId)}`);
    }
    return result.data;
}
let envLock = Promise.resolve();
/**
 * Runs `body` with `env` applied to `process.env` and restores the previous values afterwards. Calls
 * are serialised process-wide, because `@actions/cache` and `@actions/artifact` read their settings
 * (token, service URL, run ids) from `process.env` when called: without the lock, two stores acting
 * as two jobs in one process (tests, or an action that reads another run's state) would mix them.
 * When `capture` is given, every line the packages print through `@actions/core` is handed to it, so
 * a store can tell "not found" from "the service failed" (both come back from the packages as a miss).
 */
async function withActionsEnv(env, body, capture) {
    const previous = envLock;
    let release;
    envLock = new Promise((resolve) => {
        release = resolve;
    });
    await previous;
    const saved = new Map();
    for (const [name, value] of Object.entries(env)) {
        saved.set(name, process.env[name]);
        if (value === undefined)
            delete process.env[name];
        else
            process.env[name] = value;
    }
    const originalWrite = process.stdout.write;
    if (capture) {
        process.stdout.write = function (chunk, ...rest) {
            const text = typeof chunk === 'string' ? chunk : Buffer.isBuffer(chunk) ? chunk.toString('utf8') : '';
            for (const line of text.split(/\r?\n/))
                if (line)
                    capture.onLine(line);
            if (!capture.echo) {
                const callback = rest.find((argument) => typeof argument === 'function');
                callback?.();
                return true;
            }
            return originalWrite.call(this, chunk, ...rest);
        };
    }
    try {
        return await body();
    }
    finally {
        if (capture)
            process.stdout.write = originalWrite;
        for (const [name, value] of saved) {
            if (value === undefined)
                delete process.env[name];
            else
                process.env[name] = value;
        }
        release();
    }
}

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
        this.octokit = (0,github/* getOctokit */.Q)(options.token, { baseUrl: options.apiUrl.replace(/\/$/, '') });
    }
    /** Runs a call of `@actions/artifact` with the job's settings applied. */
    async actions(body) {
        return withActionsEnv(this.options.env, body, { onLine: () => { }, echo: this.options.echoLog });
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
            throw new StoreUnavailableError(`listing artifacts named ${name} failed: ${error.message}`);
        }
        const expired = found.filter((snapshot) => snapshot.expired);
        if (expired.length > 0 && !firstPageOnly) {
            this.options.note(`skipped ${expired.length} expired snapshot(s) of ${name}: #${expired.map((s) => s.id).join(', #')}`);
        }
        return found.filter((snapshot) => !snapshot.expired).sort((a, b) => b.id - a.id);
    }
    async delete(snapshot, why) {
        try {
            await this.octokit.rest.actions.deleteArtifact({
                owner: this.options.owner,
                repo: this.options.repo,
                artifact_id: snapshot.id,
            });
            this.options.note(`deleted snapshot ${snapshot.name} #${snapshot.id}: ${why}`);
        }
        catch (error) {
            this.options.note(`could not delete snapshot ${snapshot.name} #${snapshot.id} (${why}): ${error.message}`);
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
                throw new StoreUnavailableError(`downloading snapshot ${snapshot.name} #${snapshot.id} failed: ${message}`);
            }
        });
        if (result.digestMismatch) {
            throw new StoreUnavailableError(`snapshot ${snapshot.name} #${snapshot.id} arrived damaged (its sha256 does not match ${snapshot.digest}); try again`);
        }
    }
}

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
            note: (message) => this.note(message),
        });
    }
    /** The artifact name of the loop's snapshots. */
    artifactName(loopId) {
        const encoded = encodeLoopId(loopId);
        return encoded.length + 20 <= MAX_NAME ? `loop-state-${encoded}` : `loop-state-~${shortHash(loopId)}`;
    }
    quarantineName(loopId) {
        return this.artifactName(loopId).replace(/^loop-state-/, 'loop-quarantine-');
    }
    describe(loopId) {
        return `artifact ${this.artifactName(loopId)} in ${this.options.repository} (newest unexpired snapshot across runs)`;
    }
    async load(loopId) {
        checkLoopId(loopId);
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
        checkLoopId(loopId);
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
        if (!complete)
            this.note(`the trail of ${where} leans on a snapshot that expired or was deleted: older files are not restored`);
        if (lost.length > 0) {
            this.note(`${lost.length} audit trail file(s) of ${where} could not be restored (a snapshot holding part of them expired or was deleted): ${lost.slice(0, 10).join(', ')}${lost.length > 10 ? ', …' : ''}`);
        }
        return restored;
    }
    /**
     * Writes `state` (or, with null, a tombstone: "no state from here on") on top of whatever snapshot is
     * newest, for the `auto` store, whose cache has already decided the compare-and-swap.
     */
    async mirror(loopId, state) {
        checkLoopId(loopId);
        const head = (await this.snapshots.list(this.artifactName(loopId)))[0] ?? null;
        if (state === null)
            return this.upload(loopId, head, null, undefined);
        const valid = checkStateToSave(loopId, state);
        return this.upload(loopId, head, JSON.stringify(valid, null, 2), valid.iteration);
    }
    async read(loopId, head) {
        const parsed = parseStoredState(head.stateText ?? '', `artifact ${head.snapshot.name} #${head.snapshot.id}`);
        if (parsed.kind === 'future')
            throw parsed.error;
        if (parsed.kind === 'invalid')
            throw await this.quarantine(loopId, head, parsed.reason);
        return { state: parsed.state, version: String(head.snapshot.id) };
    }
    async save(loopId, state, expectedVersion) {
        checkLoopId(loopId);
        const valid = checkStateToSave(loopId, state);
        const base = await this.checkBase(loopId, expectedVersion);
        return this.upload(loopId, base, JSON.stringify(valid, null, 2), valid.iteration);
    }
    async reset(loopId) {
        checkLoopId(loopId);
        const head = await this.downloadNewest(loopId);
        if (!head || head.meta?.tombstone)
            return;
        const parsed = parseStoredState(head.stateText ?? '', `artifact ${head.snapshot.name} #${head.snapshot.id}`);
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
            const parsed = parseStoredState(downloaded.stateText ?? '', `artifact ${head.name} #${head.id}`);
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
        await (0,promises_.writeFile)((0,external_node_path_.join)(folder, META_FILE), `${JSON.stringify(meta, null, 2)}\n`);
        if (stateText !== null)
            await (0,promises_.writeFile)((0,external_node_path_.join)(folder, STATE_FILE), `${stateText}\n`);
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
                throw new StoreUnavailableError(`loop ${loopId}: uploading artifact ${name} failed: ${message}`);
            }
        });
        const id = uploaded.id;
        if (!id)
            throw new StoreUnavailableError(`loop ${loopId}: uploading artifact ${name} returned no id`);
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
    note(message) {
        this.notes.push(message);
        this.options.onNote?.(message);
    }
    /** The newest readable snapshot; one that expired between listing and download is skipped. */
    async downloadNewest(loopId) {
        for (const snapshot of await this.snapshots.list(this.artifactName(loopId))) {
            try {
                return await this.download(snapshot);
            }
            catch (error) {
                if (error instanceof ExpiredError) {
                    this.note(`snapshot ${snapshot.name} #${snapshot.id} expired before it could be downloaded; trying an older one`);
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
        const stateText = await (0,promises_.readFile)((0,external_node_path_.join)(folder, STATE_FILE), 'utf8').catch(() => null);
        const metaText = await (0,promises_.readFile)((0,external_node_path_.join)(folder, META_FILE), 'utf8').catch(() => null);
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
                .catch((error) => this.note(`could not upload quarantine artifact ${name}: ${error.message}`));
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
            this.note(`the cache holds no state for loop ${loopId} (evicted or another branch's scope); reading the artifact`);
        }
        catch (error) {
            if (!(error instanceof StoreUnavailableError))
                throw error;
            this.note(`the cache could not be read (${error.message}); reading the artifact instead`);
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
            this.note(`loop ${loopId}: saved to the cache, but mirroring to the artifact failed: ${error.message}`);
        }
        return `cache:${saved}`;
    }
    async reset(loopId) {
        await this.cache.reset(loopId);
        const artifactHead = await this.artifact.load(loopId).catch((error) => error);
        if (artifactHead instanceof Error && !(artifactHead instanceof store/* StateQuarantinedError */.MD)) {
            this.note(`loop ${loopId}: the cache was reset, but the artifact could not be checked: ${artifactHead.message}`);
            return;
        }
        if (artifactHead !== null) {
            // The artifact holds a state (or a bad one, now quarantined): mirror the reset so a later cache
            // miss does not bring the old state back.
            await this.artifact.reset(loopId);
            await this.artifact.mirror(loopId, null);
        }
    }
    note(message) {
        this.notes.push(message);
        this.options.onNote?.(message);
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
        checkLoopId(loopId);
        const head = await this.restoreNewest(loopId);
        if (!head)
            return { kind: 'empty' };
        if (head.meta?.tombstone)
            return { kind: 'reset' };
        const parsed = parseStoredState(head.stateText ?? '', `cache entry ${head.key}`);
        if (parsed.kind === 'future')
            throw parsed.error;
        if (parsed.kind === 'invalid')
            throw await this.quarantine(loopId, head, parsed.reason);
        return { kind: 'state', loaded: { state: parsed.state, version: String(head.revision) } };
    }
    async save(loopId, state, expectedVersion) {
        checkLoopId(loopId);
        const valid = checkStateToSave(loopId, state);
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
                    const parsed = parseStoredState(restored.stateText ?? '', `cache entry ${restored.key}`);
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
        checkLoopId(loopId);
        const head = await this.restoreNewest(loopId);
        if (!head || head.meta?.tombstone)
            return;
        const parsed = parseStoredState(head.stateText ?? '', `cache entry ${head.key}`);
        if (parsed.kind !== 'invalid')
            return;
        // Make sure the bad revision is kept aside before moving past it.
        await this.quarantine(loopId, head, parsed.reason);
        const nonce = (0,external_node_crypto_.randomUUID)();
        const target = head.revision + 1;
        await this.commit(loopId, target, nonce, this.revisionFiles(loopId, target, nonce, null, undefined));
    }
    loopPart(loopId) {
        const encoded = encodeLoopId(loopId);
        // Room for `loop-quarantine-`/`loop-state-`, the dot, and a revision of up to 15 digits.
        if (`loop-quarantine-${encoded}.`.length + 15 <= MAX_CACHE_KEY_LENGTH)
            return encoded;
        return `~${shortHash(loopId)}`;
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
        const result = await withActionsEnv(this.env, body, { onLine: (line) => lines.push(line), echo: this.echoLog });
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
            throw new StoreUnavailableError(`cache lookup of ${prefix}* failed: ${stripCommand(failed)}`);
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
            const stateText = await (0,promises_.readFile)((0,external_node_path_.join)(folder, STATE_FILE), 'utf8').catch(() => null);
            const metaText = await (0,promises_.readFile)((0,external_node_path_.join)(folder, META_FILE), 'utf8').catch(() => null);
            return { key, stateText, metaText };
        });
        const failed = this.failure(lines, /^::(warning|error)::Failed to restore/);
        if (failed) {
            throw new StoreUnavailableError(`cache restore of ${prefix}* failed (nothing was changed; try again): ${stripCommand(failed)}`);
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
        const files = new Map([[META_FILE, `${JSON.stringify(meta, null, 2)}\n`]]);
        if (stateText !== null)
            files.set(STATE_FILE, `${stateText}\n`);
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
        throw new StoreUnavailableError(`loop ${loopId}: the cache did not persist ${key} (${reason}); nothing was saved`);
    }
    /** Keeps a bad revision aside (local copy and a quarantine cache entry) and returns the error to throw. */
    async quarantine(loopId, head, reason) {
        const keep = (0,external_node_path_.join)(this.root, 'quarantine-kept', this.loopPart(loopId), `${head.revision}-${Date.now()}`);
        const files = new Map();
        if (head.stateText !== null)
            files.set(STATE_FILE, head.stateText);
        if (head.metaText !== null)
            files.set(META_FILE, head.metaText);
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

// EXTERNAL MODULE: external "node:os"
var external_node_os_ = __webpack_require__(48161);
// EXTERNAL MODULE: external "node:child_process"
var external_node_child_process_ = __webpack_require__(31421);
// EXTERNAL MODULE: ./src/domain/git-errors.ts
var git_errors = __webpack_require__(80818);
// EXTERNAL MODULE: ./src/adapters/git-env.ts
var git_env = __webpack_require__(76194);
;// CONCATENATED MODULE: ./src/adapters/stores/remote-branch.ts
/**
 * The git plumbing under the `git` store: one branch of a remote, read and written through a private
 * bare repository so the user's repository and work tree are never touched. Commits are built with
 * `hash-object`, a temporary index, `write-tree` and `commit-tree`, and pushed with
 * `--force-with-lease=refs/heads/<branch>:<tip it read>`, so a branch that moved meanwhile is reported,
 * never overwritten.
 */






/** Where the fetched branch tip is kept in the private repository. */
const TIP_REF = 'refs/loop-controller/tip';
/** Thrown for a push the remote declined for a reason other than a stale lease. */
class GitPushRejectedError extends Error {
    name = 'GitPushRejectedError';
}
/** The private repository's whole config: bare, and no automatic gc in the middle of a save. */
const STORE_REPOSITORY_CONFIG = '[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = true\n[gc]\n\tauto = 0\n';
/** One branch of a remote, through a private bare repository (see the module comment). */
class RemoteBranch {
    options;
    ready = null;
    initialised = false;
    constructor(options) {
        this.options = options;
    }
    get name() {
        return this.options.branch;
    }
    /** Fetches the branch; its tip, or null when the remote has no such branch. */
    async fetch() {
        const { url } = await this.prepare();
        const result = await this.git(['fetch', '--quiet', '--no-tags', url, `+refs/heads/${this.name}:${TIP_REF}`]);
        if (result.code !== 0) {
            if (/couldn't find remote ref|could not find remote ref/i.test(result.stderr)) {
                await this.git(['update-ref', '-d', TIP_REF]);
                return { commit: null };
            }
            throw new Error(`git fetch of ${this.name} from ${redact(url)} failed: ${result.stderr.trim()}`);
        }
        return { commit: (await this.must(['rev-parse', TIP_REF])).trim() };
    }
    /** The text of `path` at `commit`, or null when it is not there. */
    async readFile(commit, path) {
        const result = await this.git(['cat-file', 'blob', `${commit}:${path}`]);
        return result.code === 0 ? result.stdout : null;
    }
    /** The files under the folder `prefix` (ending in /) at `commit`. */
    async filesUnder(commit, prefix) {
        const listing = await this.must(['ls-tree', '-r', '--name-only', commit, '--', prefix]);
        return listing.split('\n').filter((path) => path.startsWith(prefix));
    }
    /** The names at the top of `commit`'s tree. */
    async topLevel(commit) {
        return (await this.must(['ls-tree', '--name-only', commit])).split('\n').filter(Boolean);
    }
    /** The last commit up to `commit` that changed something under the folder `prefix` (ending in /). */
    async lastChange(commit, prefix) {
        return (await this.must(['log', '-1', '--format=%H', commit, '--', prefix])).trim();
    }
    /** A commit on top of `parent` with `files` written and `remove` (paths, or folders ending in /) gone. */
    async commit(parent, files, remove, message) {
        const index = (0,external_node_path_.join)(this.options.workDir, `index-${(0,external_node_crypto_.randomUUID)()}`);
        const env = { GIT_INDEX_FILE: index };
        try {
            if (parent)
                await this.must(['read-tree', parent], { env });
            else
                await this.must(['read-tree', '--empty'], { env });
            // `update-index --index-info` works without a work tree (the store's repository is bare): mode 0
            // removes an entry.
            const entries = [];
            for (const path of remove) {
                const listed = (await this.must(['ls-files', '-z', '--', path], { env })).split('\0').filter(Boolean);
                for (const file of listed)
                    entries.push(`0 ${'0'.repeat(40)}\t${file}`);
            }
            const blobs = await this.writeBlobs([...files.values()]);
            for (const [index, path] of [...files.keys()].entries())
                entries.push(`100644 ${blobs[index]}\t${path}`);
            if (entries.length > 0) {
                await this.must(['update-index', '-z', '--index-info'], { env, input: `${entries.join('\0')}\0` });
            }
            const tree = (await this.must(['write-tree'], { env })).trim();
            const { name, email } = this.options.identity;
            return (await this.must(['commit-tree', tree, ...(parent ? ['-p', parent] : []), '-m', message], {
                env: {
                    GIT_AUTHOR_NAME: name,
                    GIT_AUTHOR_EMAIL: email,
                    GIT_COMMITTER_NAME: name,
                    GIT_COMMITTER_EMAIL: email,
                },
            })).trim();
        }
        finally {
            await (0,promises_.rm)(index, { force: true });
        }
    }
    /**
     * The blob ids of `contents`, written into the repository when it lacks them. A save passes the whole
     * audit trail, most of it unchanged since the last save: its ids are computed here and checked in one
     * `cat-file --batch-check`, so only new content costs a `hash-object` (one process per trail file on
     * every save would make a save's time grow with the loop's iterations).
     */
    async writeBlobs(contents) {
        const ids = contents.map((content) => {
            const bytes = typeof content === 'string' ? Buffer.from(content) : content;
            return (0,external_node_crypto_.createHash)('sha1').update(`blob ${bytes.length}\0`).update(bytes).digest('hex');
        });
        const present = new Set();
        if (ids.length > 0) {
            const answer = await this.must(['cat-file', '--batch-check'], { input: `${ids.join('\n')}\n` });
            for (const line of answer.split('\n')) {
                const [id, kind] = line.split(' ');
                if (id && kind === 'blob')
                    present.add(id);
            }
        }
        // A repository of another hash format names no blob by these ids: each is then written, by its real id.
        const blobs = [];
        for (const [index, content] of contents.entries()) {
            const id = ids[index];
            blobs.push(present.has(id) ? id : (await this.must(['hash-object', '-w', '--stdin'], { input: content })).trim());
        }
        return blobs;
    }
    /** Pushes `commit` to the branch if it still points at `expected`; false when the lease failed. */
    async push(commit, expected) {
        const { url } = await this.prepare();
        const ref = `refs/heads/${this.name}`;
        const result = await this.git([
            'push',
            '--porcelain',
            `--force-with-lease=${ref}:${expected ?? ''}`,
            url,
            `${commit}:${ref}`,
        ]);
        if (result.code === 0)
            return true;
        const said = `${result.stdout}\n${result.stderr}`;
        // A lease the client saw fail (`stale info`), or one the remote refused while updating the ref
        // because another push moved it in between (`failed to update ref`, `cannot lock ref`).
        if (/stale info|fetch first|non-fast-forward|failed to update ref|cannot lock ref|incorrect old value|already exists/i.test(said)) {
            return false;
        }
        throw new GitPushRejectedError(`git push to ${this.name} of ${redact(url)} was declined; nothing was saved: ${result.stderr.trim() || result.stdout.trim()}.${(0,git_errors/* pushPermissionHint */.d7)(said)}`);
    }
    async git(args, options = {}) {
        const auth = this.options.token
            ? {
                GIT_CONFIG_COUNT: '1',
                GIT_CONFIG_KEY_0: 'http.extraHeader',
                GIT_CONFIG_VALUE_0: `Authorization: Basic ${Buffer.from(`x-access-token:${this.options.token}`).toString('base64')}`,
            }
            : {};
        // The private repository lives where the agent (same user) could write: its config is the store's
        // own, written before each command, and hooks, global and system config never apply.
        if (this.initialised)
            await (0,promises_.writeFile)((0,external_node_path_.join)(this.options.workDir, 'config'), STORE_REPOSITORY_CONFIG);
        return new Promise((resolve, reject) => {
            const child = (0,external_node_child_process_.execFile)('git', [...git_env/* NEUTRALISED_CONFIG */.YV, '--git-dir', this.options.workDir, ...args], {
                env: { ...(0,git_env/* controllerGitEnv */.UK)(), GIT_TERMINAL_PROMPT: '0', ...auth, ...options.env },
                maxBuffer: 64 * 1024 * 1024,
                encoding: 'utf8',
            }, (error, stdout, stderr) => {
                if (error && typeof error.code !== 'number')
                    reject(error);
                else
                    resolve({ code: error ? Number(error.code) : 0, stdout, stderr });
            });
            if (options.input !== undefined)
                child.stdin?.end(options.input);
            else
                child.stdin?.end();
        });
    }
    async must(args, options = {}) {
        const result = await this.git(args, options);
        if (result.code !== 0) {
            throw new Error(`git ${args[0]} failed (exit ${result.code}): ${result.stderr.trim() || result.stdout.trim()}`);
        }
        return result.stdout;
    }
    /** Creates the private repository once and resolves the remote's URL; a failure is retried next time. */
    async prepare() {
        const { workDir, remote, repoDir } = this.options;
        this.ready ??= (async () => {
            await (0,promises_.mkdir)(workDir, { recursive: true });
            const initialised = await (0,promises_.stat)((0,external_node_path_.join)(workDir, 'HEAD')).then(() => true, () => false);
            if (!initialised)
                await this.must(['init', '--bare', '--quiet']);
            this.initialised = true;
            let url = remote;
            if (!/[/:\\]/.test(remote)) {
                const resolved = await new Promise((resolve, reject) => (0,external_node_child_process_.execFile)('git', ['-C', repoDir, 'remote', 'get-url', remote], (error, stdout, stderr) => error
                    ? reject(new Error(`GitStore: remote ${remote} of ${repoDir} is unknown: ${stderr.trim()}`))
                    : resolve(stdout.trim())));
                url = resolved;
            }
            return { url };
        })();
        try {
            return await this.ready;
        }
        catch (error) {
            this.ready = null;
            throw error;
        }
    }
}
/** A URL without the credentials it may carry, for messages. */
function redact(url) {
    return url.replace(/\/\/[^@/]*@/, '//***@');
}

;// CONCATENATED MODULE: ./src/adapters/stores/git-store.ts
/**
 * The `git` store: state (and, when given, the audit trail) committed to a branch of a remote
 * (`loop-state` by default), one folder per loop: `<loop>/loop-state.json`, `<loop>/loop-state.meta.json`,
 * `<loop>/audit/...`.
 *
 * The user's repository and work tree are never touched: the branch is read and written through a
 * private bare repository (`workDir`) with plumbing and leased pushes (`remote-branch.ts`).
 *
 * Version: the last commit that changed the loop's folder. A save whose lease fails because the branch
 * moved is retried on the new tip when the loop's own folder is unchanged (another loop saved); when
 * the folder changed, it is a `StoreConflictError`. A push declined for another reason (a hook, branch
 * protection, permissions) is an error that names git's message; nothing is lost either way.
 *
 * Quarantine: a state that fails validation is moved to `<loop>/loop-state.invalid-<time>.json` in a
 * commit, with a marker `<loop>/QUARANTINED.json` that makes `load` and `save` refuse until `reset`
 * removes the marker (the invalid file stays in the branch).
 */








const MARKER = 'QUARANTINED.json';
const ATTEMPTS = 5;
/** The `git` store (see the module comment). */
class GitStore {
    options;
    kind = 'git';
    branch;
    remote;
    stateBranch;
    runId;
    runAttempt;
    constructor(options) {
        this.options = options;
        this.branch = options.branch ?? 'loop-state';
        this.runId = options.runId ?? 'local';
        this.runAttempt = options.runAttempt ?? '1';
        this.remote = options.remote ?? 'origin';
        if (!/^[A-Za-z0-9._/-]+$/.test(this.branch) || this.branch.includes('..')) {
            throw new Error(`GitStore: branch ${JSON.stringify(this.branch)} is invalid: expected a plain branch name`);
        }
        this.stateBranch = new RemoteBranch({
            repoDir: options.repoDir,
            remote: this.remote,
            branch: this.branch,
            identity: options.identity,
            token: options.token,
            workDir: options.workDir ?? (0,external_node_path_.join)((0,external_node_os_.tmpdir)(), 'loop-controller-git-store', shortHash(`${options.repoDir}\n${this.remote}`)),
        });
    }
    describe(loopId) {
        return `git branch ${this.branch} of ${this.remote}, folder ${this.folder(loopId)}/`;
    }
    async load(loopId) {
        checkLoopId(loopId);
        for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
            const tip = await this.stateBranch.fetch();
            if (!tip.commit)
                return null;
            await this.refuseIfQuarantined(loopId, tip.commit);
            const text = await this.stateBranch.readFile(tip.commit, `${this.folder(loopId)}/${STATE_FILE}`);
            if (text === null)
                return null;
            const parsed = parseStoredState(text, `${this.branch}:${this.folder(loopId)}/${STATE_FILE}`, this.options.toolVersion);
            if (parsed.kind === 'future')
                throw parsed.error;
            if (parsed.kind === 'valid')
                return { state: parsed.state, version: await this.folderVersion(loopId, tip.commit) };
            const outcome = await this.quarantine(loopId, tip.commit, text, parsed.reason);
            if (outcome)
                throw outcome;
        }
        throw new Error(`loop ${loopId}: the ${this.branch} branch kept moving while it was read; try again`);
    }
    async save(loopId, state, expectedVersion) {
        checkLoopId(loopId);
        const valid = checkStateToSave(loopId, state);
        const folder = this.folder(loopId);
        for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
            const tip = await this.stateBranch.fetch();
            let current = null;
            if (tip.commit) {
                await this.refuseIfQuarantined(loopId, tip.commit);
                const text = await this.stateBranch.readFile(tip.commit, `${folder}/${STATE_FILE}`);
                if (text !== null) {
                    current = await this.folderVersion(loopId, tip.commit);
                    if (expectedVersion === null) {
                        const parsed = parseStoredState(text, `${this.branch}:${folder}/${STATE_FILE}`, this.options.toolVersion);
                        if (parsed.kind === 'future')
                            throw parsed.error;
                        if (parsed.kind === 'invalid') {
                            const outcome = await this.quarantine(loopId, tip.commit, text, parsed.reason);
                            if (outcome)
                                throw outcome;
                            continue;
                        }
                    }
                }
            }
            if (current !== expectedVersion) {
                throw new store/* StoreConflictError */.yn(`loop ${loopId}: expected version ${expectedVersion ?? 'none (a new loop)'} on ${this.branch}, found ${current ?? 'none'}; another writer saved first`);
            }
            const meta = {
                loopId,
                revision: 0,
                runId: this.runId,
                runAttempt: this.runAttempt,
                savedAt: new Date().toISOString(),
                tombstone: false,
                iteration: valid.iteration,
                nonce: (0,external_node_crypto_.randomUUID)(),
            };
            const files = new Map([
                [`${folder}/${STATE_FILE}`, `${JSON.stringify(valid, null, 2)}\n`],
                [`${folder}/${META_FILE}`, `${JSON.stringify(meta, null, 2)}\n`],
            ]);
            const audit = this.options.auditDir?.(loopId);
            const auditFiles = audit && (await git_store_isDirectory(audit)) ? await git_store_listFiles(audit) : [];
            for (const file of auditFiles)
                files.set(`${folder}/audit/${(0,external_node_path_.relative)(audit, file)}`, await (0,promises_.readFile)(file));
            const commit = await this.stateBranch.commit(tip.commit, files, auditFiles.length ? [`${folder}/audit/`] : [], `loop ${loopId}: iteration ${valid.iteration}, stage ${valid.stage}, ${valid.status}`);
            if (await this.stateBranch.push(commit, tip.commit))
                return commit;
            // The branch moved: another loop (retry on the new tip) or this loop (conflict, found above).
        }
        throw new store/* StoreConflictError */.yn(`loop ${loopId}: the ${this.branch} branch kept moving; load again and retry`);
    }
    /** The ids of the loops whose state the branch holds (a quarantined loop has none until reset). */
    async listLoops() {
        const tip = await this.stateBranch.fetch();
        if (!tip.commit)
            return [];
        const ids = [];
        for (const folder of await this.stateBranch.topLevel(tip.commit)) {
            const text = await this.stateBranch.readFile(tip.commit, `${folder}/${STATE_FILE}`);
            if (text === null)
                continue;
            try {
                const loopId = JSON.parse(text).loopId;
                if (typeof loopId === 'string' && this.folder(loopId) === folder)
                    ids.push(loopId);
            }
            catch {
                // Not JSON: loading it quarantines it, and it is no loop to sweep.
            }
        }
        return ids;
    }
    /**
     * Copies the audit trail committed with the loop's state into `dir` when `dir` holds no file yet (a
     * fresh runner): each save replaces `<loop>/audit/` with the local folder, so without this the trail
     * would hold only the last job's part. Returns how many files were restored.
     */
    async restoreAudit(loopId, dir) {
        checkLoopId(loopId);
        if ((await git_store_isDirectory(dir)) && (await git_store_listFiles(dir)).length > 0)
            return 0;
        const tip = await this.stateBranch.fetch();
        if (!tip.commit)
            return 0;
        const prefix = `${this.folder(loopId)}/audit/`;
        const paths = await this.stateBranch.filesUnder(tip.commit, prefix);
        for (const path of paths) {
            const text = await this.stateBranch.readFile(tip.commit, path);
            if (text === null)
                continue;
            const target = (0,external_node_path_.join)(dir, path.slice(prefix.length));
            await (0,promises_.mkdir)((0,external_node_path_.join)(target, '..'), { recursive: true });
            await (0,promises_.writeFile)(target, text);
        }
        return paths.length;
    }
    async reset(loopId) {
        checkLoopId(loopId);
        for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
            const tip = await this.stateBranch.fetch();
            if (!tip.commit)
                return;
            const marker = await this.stateBranch.readFile(tip.commit, `${this.folder(loopId)}/${MARKER}`);
            if (marker === null) {
                // An invalid state nobody loaded yet: quarantine it first, so the reset moves past it.
                const text = await this.stateBranch.readFile(tip.commit, `${this.folder(loopId)}/${STATE_FILE}`);
                if (text === null)
                    return;
                const parsed = parseStoredState(text, 'state', this.options.toolVersion);
                if (parsed.kind !== 'invalid')
                    return;
                await this.quarantine(loopId, tip.commit, text, parsed.reason);
                continue;
            }
            const commit = await this.stateBranch.commit(tip.commit, new Map(), [`${this.folder(loopId)}/${MARKER}`], `loop ${loopId}: reset after quarantine`);
            if (await this.stateBranch.push(commit, tip.commit))
                return;
        }
        throw new Error(`loop ${loopId}: the ${this.branch} branch kept moving during reset; try again`);
    }
    folder(loopId) {
        const encoded = encodeLoopId(loopId);
        return encoded.length <= 200 ? encoded : `~${shortHash(loopId)}`;
    }
    /** The loop's version: the last commit that changed its folder. */
    async folderVersion(loopId, commit) {
        return this.stateBranch.lastChange(commit, `${this.folder(loopId)}/`);
    }
    async refuseIfQuarantined(loopId, commit) {
        const marker = await this.stateBranch.readFile(commit, `${this.folder(loopId)}/${MARKER}`);
        if (marker === null)
            return;
        let kept = `${this.branch}:${this.folder(loopId)}/`;
        let reason = 'it failed validation';
        try {
            const info = JSON.parse(marker);
            if (info.file)
                kept = `${this.branch}:${info.file}`;
            if (info.reason)
                reason = info.reason;
        }
        catch {
            // A damaged marker still means quarantined.
        }
        throw new store/* StateQuarantinedError */.MD(`loop ${loopId}: the state is quarantined (${reason}); it is kept at ${kept}. Fix or discard it, then reset the loop's state before saving`, kept);
    }
    /** Moves the bad state aside in a commit; returns the error to throw, or null when the branch moved. */
    async quarantine(loopId, tip, text, reason) {
        const folder = this.folder(loopId);
        const stamp = new Date().toISOString().replace(/[:.]/g, '-');
        const kept = `${folder}/loop-state.invalid-${stamp}.json`;
        const commit = await this.stateBranch.commit(tip, new Map([
            [kept, text],
            [
                `${folder}/${MARKER}`,
                `${JSON.stringify({ loopId, file: kept, reason, at: new Date().toISOString() }, null, 2)}\n`,
            ],
        ]), [`${folder}/${STATE_FILE}`], `loop ${loopId}: quarantine an invalid state`);
        if (!(await this.stateBranch.push(commit, tip)))
            return null;
        return new store/* StateQuarantinedError */.MD(`loop ${loopId}: ${reason}. It was moved to ${this.branch}:${kept} (kept, never overwritten); fix or discard it, then reset the loop's state before saving`, `${this.branch}:${kept}`);
    }
}
async function git_store_isDirectory(path) {
    return (0,promises_.stat)(path).then((info) => info.isDirectory(), () => false);
}
async function git_store_listFiles(folder) {
    const entries = await (0,promises_.readdir)(folder, { recursive: true, withFileTypes: true });
    return entries.filter((entry) => entry.isFile()).map((entry) => (0,external_node_path_.join)(entry.parentPath, entry.name));
}

;// CONCATENATED MODULE: ./src/adapters/stores/index.ts
/** The stores that survive GitHub's disposable runners; the `file` store lives beside. */







/***/ })

};

//# sourceMappingURL=185.index.js.map