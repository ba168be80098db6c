// Settings › Appearance: how dense the task rows are on this device (use-density.ts), a
// choice of two radio buttons that every open list (and every tab) follows at once.
import { useId } from 'react';

import { DENSITIES, setDensity, useDensity, type Density } from '@/hooks/use-density';

import { SettingsSection } from './settings-section';

const CHOICES: Readonly<Record<Density, { label: string; hint: string }>> = {
  comfortable: { label: 'Comfortable', hint: 'Roomy rows, easy to tap.' },
  compact: { label: 'Compact', hint: 'Tighter rows: more tasks on screen.' },
};

export function AppearanceSection() {
  const density = useDensity();
  const name = useId();
  return (
    <SettingsSection id="appearance" title="Appearance">
      <fieldset className="settings-choice">
        <legend className="settings-choice__legend">Row density</legend>
        {DENSITIES.map((each) => (
          <div key={each} className="settings-choice__option">
            <label>
              <input
                type="radio"
                name={name}
                value={each}
                checked={density === each}
                aria-describedby={`${name}-${each}`}
                onChange={() => setDensity(each)}
              />
              {CHOICES[each].label}
            </label>
            <span id={`${name}-${each}`} className="settings-muted">
              {CHOICES[each].hint}
            </span>
          </div>
        ))}
      </fieldset>
      <p className="settings-muted">Kept on this device only.</p>
    </SettingsSection>
  );
}
