// The end of a list's header: Export and Members, which need an account. On a phone they are
// one "More" menu instead (tasks.css shows one or the other), so the header fits in two lines.
import { useState } from 'react';

import { Button } from '@/components/ui/button';
import { Menu, Popover } from '@/components/ui/menu';
import { Link, useNavigate } from '@/lib/router';

import { ExportListDialog } from './export-list-button';
import { MoreIcon, PeopleIcon } from './icons';

export function ListHeaderActions({
  listId,
  listName,
  hasPending,
  memberCount,
}: {
  listId: string;
  listName: string;
  /** Changes of this list still queued on the device (the export lacks them). */
  hasPending: boolean;
  /** undefined while the members load. */
  memberCount: number | undefined;
}) {
  const navigate = useNavigate();
  const [exporting, setExporting] = useState(false);
  const membersPath = `/lists/${listId}/members`;
  const members = memberCount === undefined ? 'Members' : `Members (${memberCount})`;
  return (
    <>
      <Button size="sm" className="tasks-screen__export" onClick={() => setExporting(true)}>
        Export
      </Button>
      <Link to={membersPath} className="btn btn--secondary btn--sm tasks-screen__members">
        <PeopleIcon />
        {members}
      </Link>
      <Popover
        className="tasks-screen__more"
        label="More"
        popup="menu"
        popupLabel="More"
        trigger={<MoreIcon />}
      >
        {(close) => (
          <Menu
            label="More"
            items={[
              { value: 'export', label: 'Export…' },
              { value: 'members', label: members },
            ]}
            onSelect={(value) => {
              close();
              if (value === 'export') setExporting(true);
              else void navigate(membersPath);
            }}
          />
        )}
      </Popover>
      <ExportListDialog
        open={exporting}
        onClose={() => setExporting(false)}
        listId={listId}
        listName={listName}
        hasPending={hasPending}
      />
    </>
  );
}
