// fake-indexeddb as the global IndexedDB, with the sync kit's fixes of two of its costs
// (sync/kit/fake-indexeddb.ts says which; fake-indexeddb.test.ts checks them).
export { cursorRecordsVisited, setFakeIndexedDbFixes } from '../../sync/kit/fake-indexeddb';
