// "Add to Outpost": what another app shared (kept on the device by the service worker,
// src/lib/pwa/share-inbox.ts) becomes attachments of a task the person picks, or of a new
// one, through the same path as the task screen's "Add file" (useAddAttachments), so it is
// queued for upload and works offline. Files the worker did not keep are named with why.
import { useEffect, useId, useMemo, useState, type FormEvent, type ReactNode } from 'react';

import { TASK_TITLE_MAX } from '@/data/schema';
import { Button } from '@/components/ui/button';
import { ColorDot } from '@/components/ui/color-dot';
import { TextField } from '@/components/ui/field';
import {
  useAddAttachments,
  type FileRefusal,
} from '@/features/attachments/hooks/use-add-attachments';
import { useListsOverview, type ListOverview } from '@/features/lists/hooks/use-lists-overview';
import { useListTasks } from '@/features/tasks/hooks/use-list-tasks';
import { errorMessage } from '@/lib/error-messages';
import { SHARE_FILES_MAX, type KeptShare, type ShareRefusalCode } from '@/lib/pwa/share-inbox';
import { Link, useNavigate } from '@/lib/router';
import { useServices } from '@/lib/services';
import { showToast } from '@/lib/toasts';
import { attempt } from '@/data/writes';
import { formatBytes } from '@/utils/format';

import './share.css';

/** The "New task" choice among a list's tasks. */
const NEW_TASK = 'new';

export interface ShareScreenProps {
  /** undefined while it is read; null when there is no such share on this device. */
  kept: { share: KeptShare; files: File[] } | null | undefined;
  /** Forgets the share once its files are attachments. */
  onAttached: () => Promise<void>;
}

/** What the person reads for a file the worker did not keep. */
export function shareRefusalMessage(reason: ShareRefusalCode, size: number): string {
  if (reason === 'FILE_TOO_LARGE') {
    return size === 0
      ? 'This file is empty'
      : `${errorMessage('FILE_TOO_LARGE')} (this one is ${formatBytes(size, { roundUp: true })})`;
  }
  if (reason === 'TOO_MANY') return `At most ${SHARE_FILES_MAX} files can be added at once`;
  return errorMessage('FILE_TYPE');
}

/** A new task's title from what was shared with the files: its title, text or link. */
export function suggestedTitle(share: KeptShare, files: readonly File[]): string {
  const line = [share.title, share.text, share.url]
    .map((value) => value.split('\n')[0]?.trim() ?? '')
    .find(Boolean);
  const title = line ?? files[0]?.name.replace(/\.[^.]+$/, '') ?? '';
  return title.slice(0, TASK_TITLE_MAX);
}

export function ShareScreen({ kept, onAttached }: ShareScreenProps) {
  return (
    <div className="screen share">
      <h1>Add to Outpost</h1>
      {kept === undefined ? null : kept === null ? (
        <div className="empty-state">
          <p className="empty-state__title">Nothing to add</p>
          <p>
            What was shared is no longer on this device. Share it again from the other app, or add
            files on a task.
          </p>
          <Link to="/lists">Go to your lists</Link>
        </div>
      ) : (
        <SharedFiles share={kept.share} files={kept.files} onAttached={onAttached} />
      )}
    </div>
  );
}

/** A share's files and what to do once they are attached to a task. */
interface SharedFilesProps {
  share: KeptShare;
  files: File[];
  onAttached: () => Promise<void>;
}

function SharedFiles({ share, files, onAttached }: SharedFilesProps) {
  const headingId = useId();
  return (
    <>
      <section className="share__files" aria-labelledby={headingId}>
        <h2 id={headingId} className="share__heading">
          {files.length === 1 ? '1 file' : `${files.length} files`}
        </h2>
        {files.length > 0 ? <FileList files={files} /> : null}
        {share.refused.length > 0 ? (
          <div className="share__refused">
            <p className="share__refused-title">
              {share.refused.length === 1
                ? 'This file can’t be added:'
                : 'These files can’t be added:'}
            </p>
            <ul>
              {share.refused.map((file, index) => (
                <li key={index}>
                  <span className="share__refused-name">{file.name}</span>:{' '}
                  {shareRefusalMessage(file.reason, file.size)}
                </li>
              ))}
            </ul>
          </div>
        ) : null}
      </section>
      {files.length === 0 ? (
        <p>
          Nothing here can be attached. <Link to="/lists">Go to your lists</Link>
        </p>
      ) : (
        <AttachForm share={share} files={files} onAttached={onAttached} />
      )}
    </>
  );
}

function FileList({ files }: { files: File[] }) {
  // Object URLs for the thumbnails, released when the files go.
  const urls = useMemo(
    () => files.map((file) => (file.type.startsWith('image/') ? URL.createObjectURL(file) : null)),
    [files],
  );
  useEffect(
    () => () => {
      for (const url of urls) if (url) URL.revokeObjectURL(url);
    },
    [urls],
  );
  return (
    <ul className="share__list">
      {files.map((file, index) => (
        <li key={index} className="share__file">
          <span className="share__thumb">
            {urls[index] ? (
              <img src={urls[index]} alt="" />
            ) : (
              <span className="share__pdf" aria-hidden="true">
                PDF
              </span>
            )}
          </span>
          <span className="share__name">{file.name}</span>
          <span className="share__size">{formatBytes(file.size)}</span>
        </li>
      ))}
    </ul>
  );
}

function AttachForm({ share, files, onAttached }: SharedFilesProps) {
  const { sync } = useServices();
  const navigate = useNavigate();
  const addAttachments = useAddAttachments();
  const lists = useListsOverview();
  const editable = useMemo(
    () => lists?.filter((list) => list.myRole === 'owner' || list.myRole === 'editor'),
    [lists],
  );
  const [chosenList, setChosenList] = useState<string>();
  const [task, setTask] = useState(NEW_TASK);
  const [title, setTitle] = useState(() => suggestedTitle(share, files));
  const [titleError, setTitleError] = useState<string>();
  const [refusals, setRefusals] = useState<FileRefusal[]>([]);
  const [busy, setBusy] = useState(false);
  const listId = chosenList ?? editable?.[0]?.id;

  if (editable === undefined) return null;
  if (editable.length === 0 || listId === undefined) {
    return (
      <p>
        You have no list you can add files to. <Link to="/lists">Create a list</Link>, then share
        again.
      </p>
    );
  }

  async function attach(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (busy || listId === undefined) return;
    setBusy(true);
    setRefusals([]);
    let taskId = task;
    if (task === NEW_TASK) {
      const created = await attempt(() => sync.repos.tasks.create(listId, { title }), {
        creates: true,
      });
      if (!created.ok) {
        setTitleError(created.errors.title ?? created.errors._ ?? errorMessage(created.code));
        setBusy(false);
        return;
      }
      taskId = created.value;
    }
    const count = (await sync.queries.attachments(taskId)).length;
    const { added, refused } = await addAttachments(taskId, files, count);
    if (added.length === 0) {
      // Nothing went: stay, say why, and keep the share (a new task stays chosen).
      setTask(taskId);
      setRefusals(refused);
      setBusy(false);
      return;
    }
    await onAttached();
    if (refused.length > 0) {
      const first = refused[0]!;
      showToast({
        message:
          refused.length === 1
            ? `${first.fileName} was not added: ${first.message}`
            : `${refused.length} files were not added: ${first.message}`,
        tone: 'error',
      });
    }
    void navigate(`/lists/${listId}/tasks/${taskId}`);
  }

  return (
    <form className="share__form" onSubmit={(event) => void attach(event)} noValidate>
      <ListChoice
        lists={editable}
        value={listId}
        onChange={(id) => {
          setChosenList(id);
          setTask(NEW_TASK);
        }}
      />
      <TaskChoice
        key={listId}
        listId={listId}
        value={task}
        onChange={setTask}
        title={title}
        titleError={titleError}
        onTitleChange={(value) => {
          setTitle(value);
          setTitleError(undefined);
        }}
      />
      {refusals.length > 0 ? (
        <div className="share__refused" role="alert">
          <p className="share__refused-title">Nothing was added:</p>
          <ul>
            {refusals.map((refusal, index) => (
              <li key={index}>
                <span className="share__refused-name">{refusal.fileName}</span>: {refusal.message}
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      <div className="share__actions">
        <Button type="submit" variant="primary" disabled={busy}>
          {busy ? 'Attaching…' : 'Attach'}
        </Button>
        <Link to="/lists" className="btn btn--ghost">
          Cancel
        </Link>
      </div>
    </form>
  );
}

/** One row of a radio group: `id` is what picking it chooses, `value` what is chosen now. */
function RadioOption({
  group,
  id,
  value,
  onChange,
  children,
}: {
  group: string;
  id: string;
  value: string;
  onChange: (id: string) => void;
  children: ReactNode;
}) {
  return (
    <label className="share__option">
      <input
        type="radio"
        name={group}
        value={id}
        checked={value === id}
        onChange={() => onChange(id)}
      />
      {children}
    </label>
  );
}

function ListChoice({
  lists,
  value,
  onChange,
}: {
  lists: ListOverview[];
  value: string;
  onChange: (id: string) => void;
}) {
  const name = useId();
  return (
    <fieldset className="share__choice">
      <legend className="share__legend">List</legend>
      <ul className="share__options">
        {lists.map((list) => (
          <li key={list.id}>
            <RadioOption group={name} id={list.id} value={value} onChange={onChange}>
              <ColorDot color={list.color} />
              <span className="share__option-name">{list.name}</span>
            </RadioOption>
          </li>
        ))}
      </ul>
    </fieldset>
  );
}

function TaskChoice({
  listId,
  value,
  onChange,
  title,
  titleError,
  onTitleChange,
}: {
  listId: string;
  value: string;
  onChange: (id: string) => void;
  title: string;
  titleError: string | undefined;
  onTitleChange: (value: string) => void;
}) {
  const { tasks } = useListTasks(listId);
  const name = useId();
  const open = tasks?.filter((task) => task.status !== 'done' || task.id === value) ?? [];
  return (
    <fieldset className="share__choice">
      <legend className="share__legend">Task</legend>
      <ul className="share__options">
        <li>
          <RadioOption group={name} id={NEW_TASK} value={value} onChange={onChange}>
            <span className="share__option-name">New task</span>
          </RadioOption>
          {value === NEW_TASK ? (
            <div className="share__new-title">
              <TextField
                label="Title"
                value={title}
                error={titleError}
                onChange={(event) => onTitleChange(event.currentTarget.value)}
              />
            </div>
          ) : null}
        </li>
        {open.map((task) => (
          <li key={task.id}>
            <RadioOption group={name} id={task.id} value={value} onChange={onChange}>
              <span className="share__option-name">{task.title}</span>
            </RadioOption>
          </li>
        ))}
      </ul>
    </fieldset>
  );
}
