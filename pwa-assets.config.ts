// Icons of the installable app, all rendered from public/icon.svg (`npm run icons`):
// favicon, 192/512 `any`, a separate 512 `maskable` (padded so platform masks never cut the
// flag), and the 180 px apple-touch-icon. The generated PNGs are committed.
import { defineConfig, minimal2023Preset } from '@vite-pwa/assets-generator/config';

export default defineConfig({
  headLinkOptions: { preset: '2023' },
  preset: {
    ...minimal2023Preset,
    maskable: { ...minimal2023Preset.maskable, resizeOptions: { background: '#1f6f78' } },
    apple: { ...minimal2023Preset.apple, resizeOptions: { background: '#1f6f78' } },
  },
  images: ['public/icon.svg'],
});
