// One section of the settings screen: a landmark with its heading, linkable by id
// (`/settings#sync`) and focusable so a link to it moves focus there.
import type { ReactNode } from 'react';

export function SettingsSection({
  id,
  title,
  children,
}: {
  id: string;
  title: string;
  children: ReactNode;
}) {
  return (
    <section
      id={id}
      className="settings-section card"
      aria-labelledby={`${id}-title`}
      tabIndex={-1}
    >
      <h2 id={`${id}-title`} className="settings-section__title">
        {title}
      </h2>
      {children}
    </section>
  );
}
