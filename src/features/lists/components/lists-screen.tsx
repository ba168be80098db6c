// /lists — the overview: every list on this device with counts, members and sync state, and
// "New list" (a dialog).
// The manifest's "New task" shortcut lands here as ?new=task and goes on to the list the
// user touched last, with its quick-add field focused; the command palette's "New list" as
// ?new=list, which opens the New list dialog.
import { useEffect, useState } from 'react';

import { Button } from '@/components/ui/button';
import { EmptyState } from '@/components/ui/empty-state';
import { useShortcut } from '@/hooks/use-shortcut';
import { dropSearchParam, Redirect, useSearchParams } from '@/lib/router';
import { useSession } from '@/lib/session';

import '../lists.css';
import { useListsOverview } from '../hooks/use-lists-overview';
import { ListCard } from './list-card';
import { NewListDialog } from './new-list-dialog';

export function ListsScreen() {
  const lists = useListsOverview();
  const { mode } = useSession();
  const [params, setParams] = useSearchParams();
  const [creating, setCreating] = useState(false);
  const wantsNewTask = params.get('new') === 'task';
  useShortcut('n', () => setCreating(true));

  // "New task" with no list yet: a list comes first (the dialog opens once, by itself).
  const [offeredList, setOfferedList] = useState(false);
  if (wantsNewTask && lists?.length === 0 && !offeredList) {
    setOfferedList(true);
    setCreating(true);
  }

  // The palette's "New list": the dialog opens, and the URL forgets it (no reopening on reload).
  const wantsNewList = params.get('new') === 'list';
  if (wantsNewList && !creating) setCreating(true);
  useEffect(() => {
    if (!wantsNewList) return;
    dropSearchParam(setParams, 'new');
  }, [wantsNewList, setParams]);

  if (wantsNewTask && lists && lists.length > 0) {
    const latest = [...lists].sort((a, b) => b.updatedAt.localeCompare(a.updatedAt))[0];
    if (latest?.myRole !== 'viewer' && latest) {
      return <Redirect to={`/lists/${latest.id}?new=1`} replace />;
    }
  }

  return (
    <section className="screen lists-screen">
      <div className="lists-screen__head">
        <h1>Lists</h1>
        <Button variant="primary" onClick={() => setCreating(true)}>
          New list
        </Button>
      </div>
      {lists === undefined ? null : lists.length === 0 ? (
        <EmptyState title="No lists yet">
          <p>Create your first list. It works offline and syncs when you&apos;re online.</p>
          <Button onClick={() => setCreating(true)}>Create a list</Button>
        </EmptyState>
      ) : (
        <ul className="lists-screen__grid" aria-label="Your lists">
          {lists.map((list) => (
            <ListCard key={list.id} list={list} mode={mode} />
          ))}
        </ul>
      )}
      <NewListDialog open={creating} onClose={() => setCreating(false)} />
    </section>
  );
}
