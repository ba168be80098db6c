// The eight palette colours as a radio group: arrow keys move between them, each swatch is
// named for screen readers, the chosen one is marked by more than its colour.
import { useId } from 'react';

import { COLOR_NAMES } from '@/components/ui/color-dot';
import { PALETTE, type ListColor } from '@/data/schema';

export function ColorPicker({
  value,
  onChange,
  legend = 'Colour',
}: {
  value: ListColor;
  onChange: (color: ListColor) => void;
  legend?: string;
}) {
  const name = useId();
  return (
    <fieldset className="lists-color-picker">
      <legend className="field__label">{legend}</legend>
      <div className="lists-color-picker__swatches">
        {PALETTE.map((color) => (
          <label key={color} className="lists-color-picker__swatch" title={COLOR_NAMES[color]}>
            <input
              type="radio"
              name={name}
              value={color}
              checked={value === color}
              onChange={() => onChange(color)}
              className="visually-hidden"
            />
            <span
              className="lists-color-picker__dot"
              aria-hidden="true"
              style={{ background: `var(--list-${color})` }}
            />
            <span className="visually-hidden">{COLOR_NAMES[color]}</span>
          </label>
        ))}
      </div>
    </fieldset>
  );
}
