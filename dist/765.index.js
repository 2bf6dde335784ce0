export const id = 765;
export const ids = [765];
export const modules = {

/***/ 46765:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   CacheStore: () => (/* binding */ CacheStore)
/* harmony export */ });
/* unused harmony export MAX_CACHE_KEY_LENGTH */
/* harmony import */ var node_crypto__WEBPACK_IMPORTED_MODULE_0__ = __webpack_require__(77598);
/* harmony import */ var node_crypto__WEBPACK_IMPORTED_MODULE_0___default = /*#__PURE__*/__webpack_require__.n(node_crypto__WEBPACK_IMPORTED_MODULE_0__);
/* harmony import */ var node_fs_promises__WEBPACK_IMPORTED_MODULE_1__ = __webpack_require__(51455);
/* harmony import */ var node_fs_promises__WEBPACK_IMPORTED_MODULE_1___default = /*#__PURE__*/__webpack_require__.n(node_fs_promises__WEBPACK_IMPORTED_MODULE_1__);
/* harmony import */ var node_path__WEBPACK_IMPORTED_MODULE_2__ = __webpack_require__(76760);
/* harmony import */ var node_path__WEBPACK_IMPORTED_MODULE_2___default = /*#__PURE__*/__webpack_require__.n(node_path__WEBPACK_IMPORTED_MODULE_2__);
/* harmony import */ var _actions_cache__WEBPACK_IMPORTED_MODULE_3__ = __webpack_require__(18091);
/* harmony import */ var _ports_store_js__WEBPACK_IMPORTED_MODULE_4__ = __webpack_require__(93433);
/* harmony import */ var _shared_js__WEBPACK_IMPORTED_MODULE_5__ = __webpack_require__(56474);
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
        (0,_shared_js__WEBPACK_IMPORTED_MODULE_5__/* .checkLoopId */ .aK)(loopId);
        const head = await this.restoreNewest(loopId);
        if (!head)
            return { kind: 'empty' };
        if (head.meta?.tombstone)
            return { kind: 'reset' };
        const parsed = (0,_shared_js__WEBPACK_IMPORTED_MODULE_5__/* .parseStoredState */ .Cm)(head.stateText ?? '', `cache entry ${head.key}`);
        if (parsed.kind === 'future')
            throw parsed.error;
        if (parsed.kind === 'invalid')
            throw await this.quarantine(loopId, head, parsed.reason);
        return { kind: 'state', loaded: { state: parsed.state, version: String(head.revision) } };
    }
    async save(loopId, state, expectedVersion) {
        (0,_shared_js__WEBPACK_IMPORTED_MODULE_5__/* .checkLoopId */ .aK)(loopId);
        const valid = (0,_shared_js__WEBPACK_IMPORTED_MODULE_5__/* .checkStateToSave */ .yU)(loopId, state);
        const head = await this.lookupNewest(loopId);
        let target;
        if (expectedVersion === null) {
            if (head === null)
                target = 1;
            else {
                const restored = await this.restoreNewest(loopId);
                if (!restored) {
                    throw new _ports_store_js__WEBPACK_IMPORTED_MODULE_4__/* .StoreConflictError */ .yn(`${this.describe(loopId)}: the newest revision changed while saving; load again`);
                }
                if (restored.meta?.tombstone)
                    target = restored.revision + 1;
                else {
                    const parsed = (0,_shared_js__WEBPACK_IMPORTED_MODULE_5__/* .parseStoredState */ .Cm)(restored.stateText ?? '', `cache entry ${restored.key}`);
                    if (parsed.kind === 'future')
                        throw parsed.error;
                    if (parsed.kind === 'invalid')
                        throw await this.quarantine(loopId, restored, parsed.reason);
                    throw new _ports_store_js__WEBPACK_IMPORTED_MODULE_4__/* .StoreConflictError */ .yn(`loop ${loopId}: expected no stored state, but the cache holds revision ${restored.revision} (${restored.key}); load it first`);
                }
            }
        }
        else {
            if (head === null) {
                throw new _ports_store_js__WEBPACK_IMPORTED_MODULE_4__/* .StoreConflictError */ .yn(`loop ${loopId}: expected revision ${expectedVersion}, but the cache holds none under ${this.keyPrefix(loopId)} (evicted, or another branch's scope)`);
            }
            if (String(head) !== expectedVersion) {
                const marker = await this.lookupExact(this.quarantineKey(loopId, head), this.quarantineFolder(loopId));
                if (marker) {
                    throw new _ports_store_js__WEBPACK_IMPORTED_MODULE_4__/* .StateQuarantinedError */ .MD(`loop ${loopId}: revision ${head} is quarantined (${marker}); run reset before saving`, marker);
                }
                throw new _ports_store_js__WEBPACK_IMPORTED_MODULE_4__/* .StoreConflictError */ .yn(`loop ${loopId}: expected revision ${expectedVersion}, but revision ${head} is the newest (another writer saved first)`);
            }
            target = head + 1;
        }
        const nonce = (0,node_crypto__WEBPACK_IMPORTED_MODULE_0__.randomUUID)();
        await this.commit(loopId, target, nonce, this.revisionFiles(loopId, target, nonce, JSON.stringify(valid, null, 2), valid.iteration));
        return String(target);
    }
    async reset(loopId) {
        (0,_shared_js__WEBPACK_IMPORTED_MODULE_5__/* .checkLoopId */ .aK)(loopId);
        const head = await this.restoreNewest(loopId);
        if (!head || head.meta?.tombstone)
            return;
        const parsed = (0,_shared_js__WEBPACK_IMPORTED_MODULE_5__/* .parseStoredState */ .Cm)(head.stateText ?? '', `cache entry ${head.key}`);
        if (parsed.kind !== 'invalid')
            return;
        // Make sure the bad revision is kept aside before moving past it.
        await this.quarantine(loopId, head, parsed.reason);
        const nonce = (0,node_crypto__WEBPACK_IMPORTED_MODULE_0__.randomUUID)();
        const target = head.revision + 1;
        await this.commit(loopId, target, nonce, this.revisionFiles(loopId, target, nonce, null, undefined));
    }
    loopPart(loopId) {
        const encoded = (0,_shared_js__WEBPACK_IMPORTED_MODULE_5__/* .encodeLoopId */ .Oi)(loopId);
        // Room for `loop-quarantine-`/`loop-state-`, the dot, and a revision of up to 15 digits.
        if (`loop-quarantine-${encoded}.`.length + 15 <= MAX_CACHE_KEY_LENGTH)
            return encoded;
        return `~${(0,_shared_js__WEBPACK_IMPORTED_MODULE_5__/* .shortHash */ .BC)(loopId)}`;
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
        return (0,node_path__WEBPACK_IMPORTED_MODULE_2__.join)(this.root, this.loopPart(loopId));
    }
    quarantineFolder(loopId) {
        return (0,node_path__WEBPACK_IMPORTED_MODULE_2__.join)(this.root, 'quarantine', this.loopPart(loopId));
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
        const result = await (0,_shared_js__WEBPACK_IMPORTED_MODULE_5__/* .withActionsEnv */ .Tu)(this.env, body, { onLine: (line) => lines.push(line), echo: this.echoLog });
        return { result, lines };
    }
    failure(lines, pattern) {
        return lines.find((line) => pattern.test(line)) ?? null;
    }
    /** The newest revision's number without downloading it, or null when the loop has none. */
    async lookupNewest(loopId) {
        const prefix = this.keyPrefix(loopId);
        const { result, lines } = await this.call(() => _actions_cache__WEBPACK_IMPORTED_MODULE_3__/* .restoreCache */ .P3([this.folder(loopId)], `${prefix}newest`, [prefix], { lookupOnly: true }));
        const failed = this.failure(lines, /^::(warning|error)::Failed to restore/);
        if (failed)
            throw new _shared_js__WEBPACK_IMPORTED_MODULE_5__/* .StoreUnavailableError */ .o2(`cache lookup of ${prefix}* failed: ${stripCommand(failed)}`);
        return result ? this.revisionOf(loopId, result) : null;
    }
    async lookupExact(key, folder) {
        const { result } = await this.call(() => _actions_cache__WEBPACK_IMPORTED_MODULE_3__/* .restoreCache */ .P3([folder], key, [], { lookupOnly: true }));
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
            await (0,node_fs_promises__WEBPACK_IMPORTED_MODULE_1__.rm)(folder, { recursive: true, force: true });
            const key = await _actions_cache__WEBPACK_IMPORTED_MODULE_3__/* .restoreCache */ .P3([folder], `${prefix}newest`, [prefix]);
            if (!key)
                return null;
            const stateText = await (0,node_fs_promises__WEBPACK_IMPORTED_MODULE_1__.readFile)((0,node_path__WEBPACK_IMPORTED_MODULE_2__.join)(folder, _shared_js__WEBPACK_IMPORTED_MODULE_5__/* .STATE_FILE */ .bv), 'utf8').catch(() => null);
            const metaText = await (0,node_fs_promises__WEBPACK_IMPORTED_MODULE_1__.readFile)((0,node_path__WEBPACK_IMPORTED_MODULE_2__.join)(folder, _shared_js__WEBPACK_IMPORTED_MODULE_5__/* .META_FILE */ .fg), 'utf8').catch(() => null);
            return { key, stateText, metaText };
        });
        const failed = this.failure(lines, /^::(warning|error)::Failed to restore/);
        if (failed) {
            throw new _shared_js__WEBPACK_IMPORTED_MODULE_5__/* .StoreUnavailableError */ .o2(`cache restore of ${prefix}* failed (nothing was changed; try again): ${stripCommand(failed)}`);
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
        const files = new Map([[_shared_js__WEBPACK_IMPORTED_MODULE_5__/* .META_FILE */ .fg, `${JSON.stringify(meta, null, 2)}\n`]]);
        if (stateText !== null)
            files.set(_shared_js__WEBPACK_IMPORTED_MODULE_5__/* .STATE_FILE */ .bv, `${stateText}\n`);
        return files;
    }
    /** Writes `files` into a fresh `folder` and saves it under `key`, in one locked step. */
    async saveFolder(folder, key, files) {
        return this.call(async () => {
            await (0,node_fs_promises__WEBPACK_IMPORTED_MODULE_1__.rm)(folder, { recursive: true, force: true });
            await (0,node_fs_promises__WEBPACK_IMPORTED_MODULE_1__.mkdir)(folder, { recursive: true });
            for (const [name, text] of files)
                await (0,node_fs_promises__WEBPACK_IMPORTED_MODULE_1__.writeFile)((0,node_path__WEBPACK_IMPORTED_MODULE_2__.join)(folder, name), text);
            return _actions_cache__WEBPACK_IMPORTED_MODULE_3__/* .saveCache */ .Io([folder], key);
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
            throw new _ports_store_js__WEBPACK_IMPORTED_MODULE_4__/* .StoreConflictError */ .yn(`loop ${loopId}: another writer saved revision ${target} first (${key}); load again and decide`);
        }
        if (refused) {
            throw new _ports_store_js__WEBPACK_IMPORTED_MODULE_4__/* .StoreConflictError */ .yn(`loop ${loopId}: the cache refused ${key} because another writer is creating it; load again and decide`);
        }
        throw new _shared_js__WEBPACK_IMPORTED_MODULE_5__/* .StoreUnavailableError */ .o2(`loop ${loopId}: the cache did not persist ${key} (${reason}); nothing was saved`);
    }
    /** Keeps a bad revision aside (local copy and a quarantine cache entry) and returns the error to throw. */
    async quarantine(loopId, head, reason) {
        const keep = (0,node_path__WEBPACK_IMPORTED_MODULE_2__.join)(this.root, 'quarantine-kept', this.loopPart(loopId), `${head.revision}-${Date.now()}`);
        const files = new Map();
        if (head.stateText !== null)
            files.set(_shared_js__WEBPACK_IMPORTED_MODULE_5__/* .STATE_FILE */ .bv, head.stateText);
        if (head.metaText !== null)
            files.set(_shared_js__WEBPACK_IMPORTED_MODULE_5__/* .META_FILE */ .fg, head.metaText);
        files.set('QUARANTINED.json', `${JSON.stringify({ loopId, revision: head.revision, key: head.key, reason, at: new Date().toISOString() }, null, 2)}\n`);
        await (0,node_fs_promises__WEBPACK_IMPORTED_MODULE_1__.mkdir)(keep, { recursive: true });
        for (const [name, text] of files)
            await (0,node_fs_promises__WEBPACK_IMPORTED_MODULE_1__.writeFile)((0,node_path__WEBPACK_IMPORTED_MODULE_2__.join)(keep, name), text);
        const key = this.quarantineKey(loopId, head.revision);
        const staging = this.quarantineFolder(loopId);
        // The quarantine entry is the marker other jobs' saves look for; if it exists already, keep it.
        if (!(await this.lookupExact(key, staging)))
            await this.saveFolder(staging, key, files);
        const where = `${key} (the bad entry ${head.key} is kept; local copy ${keep})`;
        return new _ports_store_js__WEBPACK_IMPORTED_MODULE_4__/* .StateQuarantinedError */ .MD(`loop ${loopId}: ${reason}. The state was quarantined as ${where}; fix or discard it, then reset the loop's state before saving`, keep);
    }
}
function stripCommand(line) {
    return line.replace(/^::[a-z]+::/, '');
}


/***/ })

};

//# sourceMappingURL=765.index.js.map