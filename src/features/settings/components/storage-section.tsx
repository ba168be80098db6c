// Settings › Storage: what this site uses of what the browser allows, whether the browser
// has promised to keep it (persistent storage), a way to ask for that, and the attachment
// files kept on this device for offline viewing.
import { useLiveQuery } from 'dexie-react-hooks';
import { useEffect, useState } from 'react';

import { Button } from '@/components/ui/button';
import { requestPersistence, storageInfo, type StorageInfo } from '@/lib/pwa/storage-persistence';
import { useServices } from '@/lib/services';
import { formatBytes } from '@/utils/format';

import { SettingsSection } from './settings-section';

/** The storage bar shows from this share of the quota on (1 %). */
const METER_FROM_SHARE = 0.01;

function usageSentence(info: StorageInfo): string {
  if (info.usage === null) return "This browser doesn't say how much space Outpost uses.";
  if (info.quota === null) return `Outpost uses ${formatBytes(info.usage)} on this device.`;
  return `Outpost uses ${formatBytes(info.usage)} of the ${formatBytes(info.quota)} this browser allows.`;
}

export function StorageSection() {
  const { sync } = useServices();
  const [info, setInfo] = useState<StorageInfo | null>(null);
  const [asking, setAsking] = useState(false);
  const [refused, setRefused] = useState(false);
  const files = useLiveQuery(() => sync.queries.storedFiles(), [sync]);

  useEffect(() => {
    let mounted = true;
    void storageInfo().then((next) => {
      if (mounted) setInfo(next);
    });
    return () => {
      mounted = false;
    };
  }, []);

  async function keep() {
    setAsking(true);
    await requestPersistence();
    const next = await storageInfo();
    setInfo(next);
    setRefused(!next.persisted);
    setAsking(false);
  }

  return (
    <SettingsSection id="storage" title="Storage">
      {info === null ? (
        <p className="settings-muted">Checking storage…</p>
      ) : (
        <>
          <p>{usageSentence(info)}</p>
          {/* Below 1 % the bar is an empty track: it says nothing the sentence doesn't. */}
          {info.quota !== null &&
          info.usage !== null &&
          info.quota > 0 &&
          info.usage / info.quota >= METER_FROM_SHARE ? (
            <meter
              className="settings-meter"
              min={0}
              max={info.quota}
              value={info.usage}
              aria-label="Storage used"
            />
          ) : null}
          <p aria-live="polite">
            {info.persisted
              ? 'Data on this device is kept until you delete it: the browser will not clear it to make room.'
              : 'The browser may clear data on this device when it runs low on space.'}
          </p>
          {info.persisted ? null : (
            <div className="settings-actions">
              <Button onClick={() => void keep()} disabled={asking}>
                Keep data on this device
              </Button>
            </div>
          )}
          {refused && !info.persisted ? (
            <p className="settings-muted" role="status">
              The browser said no for now. Browsers decide this by themselves, from how you use a
              site; installing Outpost as an app usually makes them keep its data.
            </p>
          ) : null}
        </>
      )}
      {files ? (
        <p>
          {files.count === 0
            ? 'No files are kept on this device for offline viewing.'
            : `${files.count === 1 ? '1 file is' : `${files.count.toLocaleString()} files are`} kept on this device for offline viewing (${formatBytes(files.bytes)}).`}
        </p>
      ) : null}
    </SettingsSection>
  );
}
