// A row's repeat mark and checklist progress in the list, and what a screen reader hears of
// them (the row's description): live, as items are ticked on the task screen or elsewhere.
import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';

import { openList, taskList } from '../testing/tasks-screen';

const row = (title: string) => within(taskList()).getByRole('listitem', { name: title });

describe('task row marks', () => {
  it('marks a repeating task and shows its checklist progress, live', async () => {
    const { services, listId } = await openList();
    const { repos } = services.sync;
    const water = await repos.tasks.create(listId, { title: 'Water', repeat: 'weekly:1' });
    const pack = await repos.tasks.create(listId, { title: 'Pack' });
    await repos.tasks.create(listId, { title: 'Plain' });
    const tent = await repos.checklist.add(pack, 'Tent');
    await repos.checklist.add(pack, 'Stove');
    await repos.checklist.add(water, 'Jug');

    await waitFor(() =>
      expect(row('Pack')).toHaveAccessibleDescription(/^0 of 2 checklist items done\./),
    );
    expect(within(row('Pack')).getByText('0/2')).toHaveAttribute('aria-hidden', 'true');
    await waitFor(() =>
      expect(row('Water')).toHaveAccessibleDescription(
        /^Repeats every Mon\. 0 of 1 checklist items done\./,
      ),
    );
    expect(row('Plain')).not.toHaveAccessibleDescription(/Repeats|checklist/);

    await repos.checklist.update(tent, { done: true });
    await waitFor(() =>
      expect(row('Pack')).toHaveAccessibleDescription(/^1 of 2 checklist items done\./),
    );
    await repos.checklist.delete(tent);
    await waitFor(() => expect(within(row('Pack')).getByText('0/1')).toBeInTheDocument());
    expect(screen.getAllByTitle('Repeats every Mon')).toHaveLength(1);
  });
});
