// attachment-cleanup: removes the storage objects of deleted attachments (sync-design.md "Files").
// A delete only queues its object's path (private.attachment_cleanup, filled by triggers
// when an attachment row is deleted, by itself or by its task's or list's cascade); this
// function drains that queue through the Storage API, the only way hosted storage lets
// objects go. It never takes a path from the caller, so a call can remove nothing that was
// not deleted already: any signed-in user may poke it (the sync engine does after pushing a
// delete), and a scheduler calls it with the project's secret key (in `apikey`) to drain what
// pokes missed. Both are checked by the function itself (verify_jwt = false; _shared/auth.ts).
import { verifyCaller } from '../_shared/auth.ts';
import { json, preflightOrMethod, serverError, serviceClient } from '../_shared/http.ts';

const BUCKET = 'attachments';
/** Paths per round: storage removes at most 1,000 objects per request. */
const BATCH_PATHS = 1000;
/** Rounds per call, so one call stays well inside the function's time limit; the rest waits. */
const MAX_ROUNDS = 20;

/** Drains the queue; answers how many objects storage removed. */
async function drain(): Promise<Response> {
  const service = serviceClient();
  let removed = 0;
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const taken = await service.rpc('attachment_cleanup_take', { max_paths: BATCH_PATHS });
    if (taken.error) return serverError(taken.error);
    const paths: string[] = taken.data ?? [];
    if (paths.length === 0) break;
    // Storage answers with the objects it removed; one already gone is simply not listed.
    // On failure the paths stay queued and their lease runs out: the next call retries them.
    const gone = await service.storage.from(BUCKET).remove(paths);
    if (gone.error) return serverError(gone.error);
    removed += gone.data.length;
    const done = await service.rpc('attachment_cleanup_done', { paths });
    if (done.error) return serverError(done.error);
    if (paths.length < BATCH_PATHS) break;
  }
  return json({ removed });
}

Deno.serve(async (req) => {
  const early = preflightOrMethod(req, ['POST']);
  if (early) return early;
  try {
    const who = await verifyCaller(req, { allowService: true });
    if (who instanceof Response) return who;
    return await drain();
  } catch (error) {
    return serverError(error);
  }
});
