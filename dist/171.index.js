export const id = 171;
export const ids = [171];
export const modules = {

/***/ 66171:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {


// EXPORTS
__webpack_require__.d(__webpack_exports__, {
  ArtifactStore: () => (/* binding */ ArtifactStore)
});

// EXTERNAL MODULE: external "node:fs/promises"
var promises_ = __webpack_require__(51455);
// EXTERNAL MODULE: external "node:path"
var external_node_path_ = __webpack_require__(76760);
// EXTERNAL MODULE: ./src/ports/store.ts
var store = __webpack_require__(93433);
// EXTERNAL MODULE: ./src/adapters/github-client.ts + 1 modules
var github_client = __webpack_require__(49960);
// EXTERNAL MODULE: ./src/adapters/stores/shared.ts
var shared = __webpack_require__(56474);
;// CONCATENATED MODULE: ./src/adapters/stores/artifact-snapshots.ts
/**
 * The artifact store's transport: list, download and delete a loop's snapshot artifacts across runs
 * through the REST API and the real `@actions/artifact` (v6). What a snapshot means is
 * `artifact-store.ts`'s business; this module only moves them.
 *
 * `@actions/artifact` (with its own Azure blob SDK and archiver, a large part of the bundle) is loaded at
 * the first upload or download, not with this module: listing is the REST API, so a load that finds no
 * snapshot, or an `auto` job that reads its state from the cache and saves none, never parses it.
 */



/** A snapshot that expired between listing and download (GitHub answers 410). */
class ExpiredError extends Error {
}
/** The snapshots of a repository (see the module comment). */
class Snapshots {
    options;
    octokit;
    loadedClient;
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
    /**
     * Runs a call of `@actions/artifact` with the job's settings applied. The module is loaded before
     * the settings are, so it reads the environment at load as it did when it was imported at start-up.
     */
    async actions(body) {
        this.loadedClient ??= Promise.all(/* import() */[__webpack_require__.e(147), __webpack_require__.e(142)]).then(__webpack_require__.bind(__webpack_require__, 142)).then(({ DefaultArtifactClient }) => new DefaultArtifactClient());
        const client = await this.loadedClient;
        return (0,shared/* withActionsEnv */.Tu)(this.options.env, () => body(client), { onLine: () => { }, echo: this.options.echoLog });
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
        const result = await this.actions(async (client) => {
            try {
                return await client.downloadArtifact(snapshot.id, {
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
        const uploaded = await this.snapshots.actions(async (client) => {
            try {
                return await client.uploadArtifact(name, await listFiles(folder), folder, {
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
                .actions(async (client) => client.uploadArtifact(name, await listFiles(keep), keep))
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


/***/ })

};

//# sourceMappingURL=171.index.js.map