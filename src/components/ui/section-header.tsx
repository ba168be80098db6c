// The header of a quiet section of a screen (issue 40: the task's files and comments): a
// small heading with how many things the section holds, and any buttons beside it, rather
// than a large box. One component, so the sections read and look the same.
import type { ReactNode, Ref } from 'react';

import './section-header.css';

export interface SectionHeaderProps {
  /** The heading's id: the section is named by it (`aria-labelledby`). */
  id: string;
  /** The heading's text ("Files"). */
  title: string;
  /**
   * How many things the section holds: shown as a quiet number and read as "Files (2)";
   * nothing when there are none or they are not read yet.
   */
  count: number | undefined;
  /** The heading, focusable from script: where focus goes when what had it is removed. */
  headingRef?: Ref<HTMLHeadingElement>;
  /** The section's buttons ("Add file"), beside the heading. */
  children?: ReactNode;
}

/** A section's `h2` with its count, and its buttons on the same line. */
export function SectionHeader({ id, title, count, headingRef, children }: SectionHeaderProps) {
  return (
    <div className="section-header">
      <h2 id={id} ref={headingRef} tabIndex={-1} className="section-header__title">
        {title}
        {count ? (
          <>
            {' '}
            <span className="section-header__count">
              <span className="visually-hidden">(</span>
              {count}
              <span className="visually-hidden">)</span>
            </span>
          </>
        ) : null}
      </h2>
      {children ? <div className="section-header__actions">{children}</div> : null}
    </div>
  );
}
