// "Add file", and "Take photo" where the device has a camera: real file inputs (visually
// hidden, each named by the label that looks like a button), so keyboards, screen readers and
// phone cameras all work, beside the section's heading. The files go through
// useAddAttachments (checked first; a refused file is listed under the files with the limit
// it breaks, the others are added). The limits are read out with the buttons, and shown once
// the task is full (otherwise a refusal names the one broken).
import {
  useId,
  useState,
  type ChangeEvent,
  type InputHTMLAttributes,
  type ReactNode,
  type Ref,
} from 'react';

import {
  ATTACHMENT_MAX_BYTES,
  ATTACHMENT_MIME_TYPES,
  ATTACHMENTS_PER_TASK_MAX,
} from '@/data/schema';
import { Button } from '@/components/ui/button';
import { SectionHeader, type SectionHeaderProps } from '@/components/ui/section-header';
import { formatBytes } from '@/utils/format';

import { useAddAttachments } from '../hooks/use-add-attachments';
import { useHasCamera } from '../hooks/use-has-camera';

interface Refusal {
  key: number;
  fileName: string;
  message: string;
}

/**
 * What "Take photo" offers: the allowed image types by name, not `image/*`, which lets a
 * picker offer HEIC or SVG that would then be refused.
 */
export const PHOTO_ACCEPT = ATTACHMENT_MIME_TYPES.filter((type) => type.startsWith('image/')).join(
  ',',
);

let nextKey = 1;

export function AttachmentPicker({
  taskId,
  count,
  header,
  headingRef,
  children,
}: {
  taskId: string;
  count: number;
  /** The section's header (its heading's id and text), which the buttons sit in. */
  header: Pick<SectionHeaderProps, 'id' | 'title'>;
  /** The section's heading, for the section to put focus on. */
  headingRef: Ref<HTMLHeadingElement>;
  /** The files (or the line saying there are none), between the buttons and any refusal. */
  children: ReactNode;
}) {
  const addAttachments = useAddAttachments();
  const hasCamera = useHasCamera();
  const hintId = useId();
  const [refusals, setRefusals] = useState<Refusal[]>([]);
  const [announcement, setAnnouncement] = useState('');
  const [busy, setBusy] = useState(false);
  const full = count >= ATTACHMENTS_PER_TASK_MAX;

  async function add(event: ChangeEvent<HTMLInputElement>) {
    const input = event.currentTarget;
    const files = [...(input.files ?? [])];
    if (files.length === 0) return;
    setBusy(true);
    setAnnouncement(files.length === 1 ? 'Adding 1 file…' : `Adding ${files.length} files…`);
    const outcome = await addAttachments(taskId, files, count);
    const refused = outcome.refused.map((refusal) => ({ key: nextKey++, ...refusal }));
    const added = outcome.added.length;
    // Lets the same file be picked again after fixing the reason it was refused.
    input.value = '';
    setRefusals(refused);
    setBusy(false);
    setAnnouncement(
      added === 0
        ? ''
        : `Added ${added} ${added === 1 ? 'file' : 'files'}${refused.length ? `, ${refused.length} not added` : ''}.`,
    );
  }

  return (
    <>
      <SectionHeader {...header} count={count} headingRef={headingRef}>
        {hasCamera ? (
          <FileChooser
            icon={<CameraIcon />}
            label="Take photo"
            input={{ accept: PHOTO_ACCEPT, capture: 'environment' }}
            disabled={full}
            hintId={hintId}
            onChoose={add}
          />
        ) : null}
        <FileChooser
          icon={<PaperclipIcon />}
          label="Add file"
          input={{ accept: ATTACHMENT_MIME_TYPES.join(','), multiple: true }}
          disabled={full}
          hintId={hintId}
          onChoose={add}
        />
      </SectionHeader>
      <p id={hintId} className={full ? 'attachments__hint' : 'visually-hidden'}>
        {full
          ? `This task has ${ATTACHMENTS_PER_TASK_MAX} of ${ATTACHMENTS_PER_TASK_MAX} files. Remove one to add another.`
          : `JPEG, PNG, WebP, GIF or PDF, up to ${formatBytes(ATTACHMENT_MAX_BYTES)} each · ${count} of ${ATTACHMENTS_PER_TASK_MAX}`}
      </p>
      {children}
      {refusals.length > 0 ? (
        <div className="attachments__refusals" role="alert">
          <p className="attachments__refusals-title">
            {refusals.length === 1 ? 'This file was not added:' : 'These files were not added:'}
          </p>
          <ul>
            {refusals.map((refusal) => (
              <li key={refusal.key}>
                <span className="attachments__refused-name">{refusal.fileName}</span>:{' '}
                {refusal.message}
              </li>
            ))}
          </ul>
          <Button variant="ghost" size="sm" onClick={() => setRefusals([])}>
            Dismiss
          </Button>
        </div>
      ) : null}
      <p className="visually-hidden" role="status">
        {busy ? announcement || 'Adding…' : announcement}
      </p>
    </>
  );
}

/** A real file input, visually hidden, named by the label that looks like a button. */
function FileChooser({
  icon,
  label,
  input,
  disabled,
  hintId,
  onChoose,
}: {
  icon: ReactNode;
  label: string;
  /** What the picker offers: the types, the camera, several files. */
  input: Pick<InputHTMLAttributes<HTMLInputElement>, 'accept' | 'capture' | 'multiple'>;
  disabled: boolean;
  hintId: string;
  onChoose: (event: ChangeEvent<HTMLInputElement>) => Promise<void>;
}) {
  const id = useId();
  return (
    <span className="attachments__choose">
      <input
        id={id}
        className="visually-hidden attachments__input"
        type="file"
        {...input}
        disabled={disabled}
        aria-describedby={hintId}
        onChange={(event) => void onChoose(event)}
      />
      <label htmlFor={id} className="btn btn--ghost btn--sm attachments__label">
        {icon}
        {label}
      </label>
    </span>
  );
}

/** The frame of a chooser's icon: decorative, the label names the button. */
function ButtonIcon({ children }: { children: ReactNode }) {
  return (
    <svg
      className="attachments__button-icon"
      viewBox="0 0 24 24"
      aria-hidden="true"
      focusable="false"
    >
      {children}
    </svg>
  );
}

function CameraIcon() {
  return (
    <ButtonIcon>
      <path
        d="M4 7h3l2-3h6l2 3h3a1 1 0 0 1 1 1v11a1 1 0 0 1-1 1H4a1 1 0 0 1-1-1V8a1 1 0 0 1 1-1z"
        fill="none"
        stroke="currentColor"
        strokeWidth="2"
        strokeLinejoin="round"
      />
      <circle cx="12" cy="13" r="3.5" fill="none" stroke="currentColor" strokeWidth="2" />
    </ButtonIcon>
  );
}

function PaperclipIcon() {
  return (
    <ButtonIcon>
      <path
        d="M20 11.5l-8.1 8.1a5 5 0 0 1-7.1-7.1l8.5-8.5a3.5 3.5 0 0 1 5 5l-8.5 8.5a2 2 0 0 1-2.8-2.8L15 6.8"
        fill="none"
        stroke="currentColor"
        strokeWidth="2"
        strokeLinecap="round"
        strokeLinejoin="round"
      />
    </ButtonIcon>
  );
}
