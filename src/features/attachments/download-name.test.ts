import { describe, expect, it } from 'vitest';

import { downloadName } from './download-name';

describe('downloadName', () => {
  it('keeps a name that already ends in its type’s extension, in any case', () => {
    expect(downloadName('Site plan.pdf', 'application/pdf')).toBe('Site plan.pdf');
    expect(downloadName('IMG_0001.JPG', 'image/jpeg')).toBe('IMG_0001.JPG');
    expect(downloadName('photo.jpeg', 'image/jpeg')).toBe('photo.jpeg');
  });

  it('appends the type’s extension to a name that claims another type', () => {
    expect(downloadName('invoice.html', 'application/pdf')).toBe('invoice.html.pdf');
    expect(downloadName('setup.exe', 'image/png')).toBe('setup.exe.png');
    expect(downloadName('notes', 'image/webp')).toBe('notes.webp');
  });

  it('drops direction overrides and control characters that disguise an extension', () => {
    // "report\u202Efdp.exe" reads as "reportexe.pdf" but is an .exe.
    expect(downloadName('report\u202Efdp.exe', 'application/pdf')).toBe('reportfdp.exe.pdf');
    expect(downloadName('a\u0000b\nc.pdf', 'application/pdf')).toBe('abc.pdf');
  });

  it('names an unknown type .bin and an empty name "attachment"', () => {
    expect(downloadName('page.html', 'text/html')).toBe('page.html.bin');
    expect(downloadName(' \u202E ', 'application/pdf')).toBe('attachment.pdf');
  });
});
