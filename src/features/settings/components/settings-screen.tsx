// /settings (product.md §2): profile, appearance, sync, sync with the app closed and rejected
// changes, storage, installing, export, account, about, with a navigation of its own to each.
// Each section is linkable (`/settings#sync`, `#rejected`) and renders from the device alone;
// only uploading a picture and syncing need the network.
import { useScrollToHash } from '../hooks/use-scroll-to-hash';
import '../settings.css';
import { AboutSection } from './about-section';
import { AccountSection } from './account-section';
import { AppearanceSection } from './appearance-section';
import { BackgroundSection } from './background-section';
import { ExportSection } from './export-section';
import { InstallSection } from './install-section';
import { ProfileSection } from './profile-section';
import { RejectedSection } from './rejected-section';
import { SettingsNav } from './settings-nav';
import { StorageSection } from './storage-section';
import { SyncSection } from './sync-section';

const CONTENTS: readonly (readonly [id: string, title: string])[] = [
  ['profile', 'Profile'],
  ['appearance', 'Appearance'],
  ['sync', 'Sync'],
  ['background', 'Sync with the app closed'],
  ['rejected', 'Rejected changes'],
  ['storage', 'Storage'],
  ['install', 'Install'],
  ['export', 'Export'],
  ['account', 'Account'],
  ['about', 'About'],
];

export function SettingsScreen() {
  useScrollToHash();
  return (
    <div className="screen settings">
      <h1>Settings</h1>
      <SettingsNav sections={CONTENTS} />
      <div className="settings-sections">
        <ProfileSection />
        <AppearanceSection />
        <SyncSection />
        <BackgroundSection />
        <RejectedSection />
        <StorageSection />
        <InstallSection />
        <ExportSection />
        <AccountSection />
        <AboutSection />
      </div>
    </div>
  );
}
