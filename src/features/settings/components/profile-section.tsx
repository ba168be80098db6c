// Settings › Profile: the name others see and a picture. The name is an ordinary synced
// write (works offline); the picture's bytes go to the public `avatars` bucket (through
// src/lib/api.ts, never storage directly), which needs a connection, and then its path is
// written like the name.
import { useLiveQuery } from 'dexie-react-hooks';
import { useId, useState, type FormEvent } from 'react';

import { Avatar } from '@/components/ui/avatar';
import { Button } from '@/components/ui/button';
import { FormError, TextField } from '@/components/ui/field';
import { useAvatarUrl } from '@/hooks/use-avatar-url';
import { useOnline } from '@/hooks/use-online';
import type { AppErrorCode } from '@/lib/error-messages';
import { Link } from '@/lib/router';
import { useServices } from '@/lib/services';
import { useSession } from '@/lib/session';
import { attempt } from '@/data/writes';
import { DISPLAY_NAME_MAX, profilePatch } from '@/data/schema';
import { validate } from '@sync/index';
import { type Profile } from '@/data/rows';

import { SettingsSection } from './settings-section';

/** Largest picture (bytes): the avatars bucket's limit, 2 MiB. */
export const AVATAR_MAX_BYTES = 2 * 1024 * 1024;

/** Picture types the avatars bucket accepts, and the extension each is stored under. */
const AVATAR_TYPES: Readonly<Record<string, string>> = {
  'image/jpeg': 'jpg',
  'image/png': 'png',
  'image/webp': 'webp',
  'image/gif': 'gif',
};

/** Why a picture can't be used, before anything is uploaded; undefined when it can. */
export function avatarFileProblem(file: { type: string; size: number }): string | undefined {
  if (!(file.type in AVATAR_TYPES)) return 'Choose a JPEG, PNG, WebP or GIF image.';
  if (file.size > AVATAR_MAX_BYTES) return 'Pictures can be at most 2 MB.';
  if (file.size === 0) return 'That file is empty.';
  return undefined;
}

/** What the user reads when the bucket refuses a picture, by the wrapper's code. */
export function avatarUploadProblem(code: AppErrorCode): string {
  switch (code) {
    case 'FILE_TOO_LARGE':
      return 'Pictures can be at most 2 MB.';
    case 'FILE_TYPE':
      return 'Choose a JPEG, PNG, WebP or GIF image.';
    case 'OFFLINE':
      return "Couldn't reach the server to upload the picture. Try again when you're online.";
    case 'AUTH_EXPIRED':
      return 'Sign in again to change your picture.';
    case 'PERMISSION_DENIED':
      return "You can't change this picture.";
    default:
      return "Couldn't upload the picture. Try again in a moment.";
  }
}

function NameForm({ profile }: { profile: Profile }) {
  const { sync } = useServices();
  const saved = profile.display_name;
  // What the user is typing; null while the field simply shows the saved name (which may
  // change under it when another device renames them).
  const [draft, setDraft] = useState<string | null>(null);
  const name = draft ?? saved;
  const [errors, setErrors] = useState<Partial<Record<string, string>>>({});
  const [status, setStatus] = useState('');
  /** The field has been left or submitted once: from then on it is checked as you type. */
  const [checked, setChecked] = useState(false);
  /** The name just written, until the live row shows it. */
  const [justSaved, setJustSaved] = useState<string | null>(null);

  function check(value: string) {
    const result = validate(profilePatch, { display_name: value });
    return result.ok ? {} : result.errors;
  }

  async function submit(event: FormEvent) {
    event.preventDefault();
    const found = check(name);
    setChecked(true);
    setErrors(found);
    setStatus('');
    if (Object.keys(found).length > 0) return;
    const result = await attempt(() => sync.repos.profile.update({ display_name: name.trim() }));
    if (!result.ok) {
      setErrors(result.errors);
      return;
    }
    setDraft(name.trim());
    setJustSaved(name.trim());
    setStatus('Name saved.');
  }

  // Once the live row shows what was just saved, the field follows the row again (adjusted
  // while rendering, as React recommends for state derived from props).
  if (justSaved !== null && justSaved === saved) {
    setJustSaved(null);
    if (draft === saved) setDraft(null);
  }

  return (
    <form className="settings-form" onSubmit={(event) => void submit(event)} noValidate>
      <TextField
        label="Display name"
        name="display_name"
        autoComplete="name"
        value={name}
        error={errors.display_name}
        hint={`${name.trim().length} / ${DISPLAY_NAME_MAX}`}
        onChange={(event) => {
          const value = event.target.value;
          setDraft(value);
          setStatus('');
          // Once the field has been left or submitted, say at once when a rule is met or
          // broken; a name that is already too long is pointed out straight away.
          const found = check(value);
          if (checked || value.trim().length > DISPLAY_NAME_MAX) setErrors(found);
          else setErrors({});
        }}
        onBlur={() => {
          setChecked(true);
          setErrors(check(name));
        }}
      />
      <FormError message={errors._} />
      <div className="settings-actions">
        <Button type="submit" variant="primary" disabled={name.trim() === saved}>
          Save name
        </Button>
        <span className="settings-muted" role="status">
          {status}
        </span>
      </div>
    </form>
  );
}

function PictureControls({ profile, userId }: { profile: Profile; userId: string }) {
  const { sync, supabase, now } = useServices();
  const online = useOnline();
  const inputId = useId();
  const [error, setError] = useState<string | undefined>();
  const [status, setStatus] = useState('');
  const [busy, setBusy] = useState(false);
  const path = profile.avatar_path;
  const name = profile.display_name || 'You';
  const url = useAvatarUrl(path);

  async function upload(file: File) {
    const problem = avatarFileProblem(file);
    setError(problem);
    setStatus('');
    if (problem) return;
    setBusy(true);
    setStatus('Uploading…');
    // A new name per upload: the bucket is public and cached, so a replaced file at the same
    // URL would keep showing the old picture. Old files are left: other devices show them
    // until they have synced the new path.
    const objectPath = `${userId}/avatar-${now()}.${AVATAR_TYPES[file.type] ?? 'img'}`;
    // The upload's code (and supabase-js's storage client) loads on the first picture.
    const { uploadAvatar } = await import('@/lib/api');
    const uploaded = await uploadAvatar(supabase, objectPath, file);
    if (!uploaded.ok) {
      setBusy(false);
      setStatus('');
      setError(avatarUploadProblem(uploaded.code));
      return;
    }
    const result = await attempt(() => sync.repos.profile.update({ avatar_path: uploaded.path }));
    setBusy(false);
    setStatus(result.ok ? 'Picture changed.' : '');
    if (!result.ok) setError(result.errors._ ?? result.errors.avatar_path);
  }

  async function remove() {
    setError(undefined);
    const result = await attempt(() => sync.repos.profile.update({ avatar_path: null }));
    setStatus(result.ok ? 'Picture removed.' : '');
    if (!result.ok) setError(result.errors._ ?? result.errors.avatar_path);
  }

  return (
    <div className="settings-avatar">
      <Avatar id={userId} name={name} src={url} size={72} />
      <div className="settings-avatar__controls">
        <div className="settings-actions">
          {/* The input comes first so its focus ring can be drawn on the label (CSS). */}
          <input
            id={inputId}
            className="visually-hidden settings-file__input"
            type="file"
            accept={Object.keys(AVATAR_TYPES).join(',')}
            disabled={!online || busy}
            aria-describedby={`${inputId}-hint`}
            onChange={(event) => {
              const file = event.target.files?.[0];
              event.target.value = ''; // choosing the same file again still counts
              if (file) void upload(file);
            }}
          />
          <label htmlFor={inputId} className="btn btn--secondary settings-file">
            Change picture
          </label>
          {path ? (
            <Button variant="ghost" onClick={() => void remove()} disabled={busy}>
              Remove picture
            </Button>
          ) : null}
        </div>
        <p id={`${inputId}-hint`} className="settings-muted">
          {online
            ? 'JPEG, PNG, WebP or GIF, up to 2 MB.'
            : 'Changing your picture needs a connection. You can still change your name.'}
        </p>
        {error ? (
          <p className="field__error" role="alert">
            {error}
          </p>
        ) : null}
        <p className="settings-muted" role="status">
          {status}
        </p>
      </div>
    </div>
  );
}

export function ProfileSection() {
  const { sync } = useServices();
  const { mode, userId } = useSession();
  const profile = useLiveQuery(() => sync.queries.profile(userId), [sync, userId]);

  let body;
  if (mode === 'local') {
    body = (
      <p>
        Create an account to set up a profile. <Link to="/sign-up">Create an account</Link>
      </p>
    );
  } else if (profile === undefined) {
    body = null;
  } else if (profile === null) {
    body = (
      <p className="settings-muted">
        Your profile appears here once this device has synced with your account.
      </p>
    );
  } else {
    body = (
      <>
        <PictureControls profile={profile} userId={userId} />
        <NameForm key={profile.id} profile={profile} />
      </>
    );
  }
  return (
    <SettingsSection id="profile" title="Profile">
      {body}
    </SettingsSection>
  );
}
