// The section header's own behaviour: the count is part of the heading's name, read in
// brackets ("Files (2)"), and left out when there is nothing to count; buttons sit beside it.
import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';

import { SectionHeader } from './section-header';

describe('section header', () => {
  it('names its heading with the count, and its buttons sit beside the heading', () => {
    render(
      <SectionHeader id="files-1" title="Files" count={2}>
        <button type="button">Add file</button>
      </SectionHeader>,
    );
    const heading = screen.getByRole('heading', { level: 2, name: 'Files (2)' });
    expect(heading).toHaveAttribute('id', 'files-1');
    expect(heading.parentElement).toContainElement(
      screen.getByRole('button', { name: 'Add file' }),
    );
  });

  it('leaves the count out when there are none or they are not read yet', () => {
    const { rerender } = render(<SectionHeader id="c" title="Comments" count={0} />);
    expect(screen.getByRole('heading', { level: 2 })).toHaveAccessibleName('Comments');
    rerender(<SectionHeader id="c" title="Comments" count={undefined} />);
    expect(screen.getByRole('heading', { level: 2 })).toHaveAccessibleName('Comments');
  });
});
