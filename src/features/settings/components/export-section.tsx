// Settings › Export: everything on this device as one JSON file, made from the device
// database (so it works offline) and handed to the browser as a download. Reads happen on
// the click, once, rather than through a live query: nothing here is shown from them.
import { useState } from 'react';

import { Button } from '@/components/ui/button';
import { useServices } from '@/lib/services';
import { downloadFile } from '@/utils/download-file';
import { formatBytes, todayIso } from '@/utils/format';

import { buildExport, countExportedTasks, exportFileName } from '../utils/build-export';
import { SettingsSection } from './settings-section';

type ExportState =
  | { phase: 'idle' }
  | { phase: 'reading' }
  | { phase: 'building'; tasks: number }
  | { phase: 'done'; tasks: number; lists: number; bytes: number; fileName: string }
  | { phase: 'failed'; message: string };

/** Lets the browser paint the progress text before the (synchronous) build. */
function nextFrame(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

function tasksText(count: number): string {
  return count === 1 ? '1 task' : `${count.toLocaleString('en-US')} tasks`;
}

export function ExportSection() {
  const { sync, now } = useServices();
  const [state, setState] = useState<ExportState>({ phase: 'idle' });
  const busy = state.phase === 'reading' || state.phase === 'building';

  async function run() {
    setState({ phase: 'reading' });
    try {
      const source = await sync.queries.deviceRows();
      const tasks = countExportedTasks(source);
      setState({ phase: 'building', tasks });
      await nextFrame();
      const doc = buildExport(source, {
        exportedAt: new Date(now()).toISOString(),
        appVersion: __APP_VERSION__,
      });
      const blob = new Blob([JSON.stringify(doc, null, 2)], { type: 'application/json' });
      const fileName = exportFileName(todayIso(now()));
      downloadFile(blob, fileName);
      setState({ phase: 'done', tasks, lists: doc.lists.length, bytes: blob.size, fileName });
    } catch (error) {
      console.error('[outpost] export failed', error);
      setState({
        phase: 'failed',
        message: error instanceof Error ? error.message : String(error),
      });
    }
  }

  let progress = '';
  if (state.phase === 'reading') progress = 'Reading data on this device…';
  else if (state.phase === 'building') progress = `Exporting ${tasksText(state.tasks)}…`;
  else if (state.phase === 'done') {
    const lists = state.lists === 1 ? '1 list' : `${state.lists.toLocaleString('en-US')} lists`;
    progress = `Exported ${lists} and ${tasksText(state.tasks)} to ${state.fileName} (${formatBytes(state.bytes)}).`;
  }

  return (
    <SettingsSection id="export" title="Export">
      <p>
        Download every list, member, task, checklist and comment on this device as one JSON file.
        Works offline. Attached files are listed, not included.
      </p>
      <div className="settings-actions">
        <Button onClick={() => void run()} disabled={busy}>
          Export all data (JSON)
        </Button>
      </div>
      <p className="settings-muted" role="status">
        {progress}
      </p>
      {state.phase === 'failed' ? (
        <p className="form-error" role="alert">
          Couldn&apos;t export: {state.message}
        </p>
      ) : null}
    </SettingsSection>
  );
}
