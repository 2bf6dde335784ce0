export const id = 468;
export const ids = [468];
export const modules = {

/***/ 27468:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   AutoStore: () => (/* binding */ AutoStore)
/* harmony export */ });
/* harmony import */ var _ports_store_js__WEBPACK_IMPORTED_MODULE_0__ = __webpack_require__(93433);
/* harmony import */ var _shared_js__WEBPACK_IMPORTED_MODULE_1__ = __webpack_require__(56474);


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
            if (!(error instanceof _shared_js__WEBPACK_IMPORTED_MODULE_1__/* .StoreUnavailableError */ .o2))
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
        if (artifactHead instanceof Error && !(artifactHead instanceof _ports_store_js__WEBPACK_IMPORTED_MODULE_0__/* .StateQuarantinedError */ .MD)) {
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


/***/ })

};

//# sourceMappingURL=468.index.js.map