// Ports of the e2e run, shared by playwright.config.ts and the tests (apart from the
// defaults of a developer's `npm start`, so both can run at once).
/** Where the preview server of the production build listens during e2e runs. */
export const E2E_APP_PORT = Number(process.env.E2E_APP_PORT ?? 4180);
/** Where the e2e devstack listens; the build is made against it. */
export const E2E_API_PORT = Number(process.env.E2E_API_PORT ?? 54331);
/** The devstack's base URL as the built app sees it. */
export const E2E_API_URL = `http://127.0.0.1:${E2E_API_PORT}`;
/** The app's origin during e2e runs. */
export const E2E_APP_URL = `http://localhost:${E2E_APP_PORT}`;
/** Where the update-flow test serves its two builds (a separate origin, so its own worker). */
export const E2E_UPDATE_PORT = Number(process.env.E2E_UPDATE_PORT ?? 4190);
/**
 * The devstack's publishable key (the Supabase CLI's well-known local one, public): what the
 * built app and the tests' clients send. The devstack runs with its legacy keys off.
 */
export const E2E_PUBLISHABLE_KEY = 'sb_publishable_ACJWlzQHlZjBrEguHvfOxg_3BJgxAaH';
