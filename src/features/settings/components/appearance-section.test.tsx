// Settings › Appearance: the row density as two radio buttons, Comfortable first and chosen
// until the user picks Compact, which this device keeps and every reader of it follows.
import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';

import { useDensity } from '@/hooks/use-density';

import { AppearanceSection } from './appearance-section';

/** Another screen reading the density (a list's rows). */
function DensityReader() {
  return <output aria-label="Rows">{useDensity()}</output>;
}

describe('appearance settings', () => {
  it('chooses the row density, kept on the device and followed at once', async () => {
    const user = userEvent.setup();
    render(
      <>
        <AppearanceSection />
        <DensityReader />
      </>,
    );
    const group = screen.getByRole('group', { name: 'Row density' });
    const comfortable = screen.getByRole('radio', { name: 'Comfortable' });
    const compact = screen.getByRole('radio', { name: 'Compact' });
    expect(group).toContainElement(compact);
    expect(comfortable).toBeChecked();
    expect(compact).toHaveAccessibleDescription('Tighter rows: more tasks on screen.');

    await user.click(compact);
    expect(compact).toBeChecked();
    expect(comfortable).not.toBeChecked();
    expect(localStorage.getItem('outpost:density')).toBe('compact');
    expect(screen.getByRole('status', { name: 'Rows' })).toHaveTextContent('compact');

    // Arrows move between the two, as in any radio group.
    await user.keyboard('{ArrowUp}');
    expect(comfortable).toBeChecked();
    expect(localStorage.getItem('outpost:density')).toBe('comfortable');
  });
});
