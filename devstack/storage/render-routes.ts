// Image transformation (/render/image/{authenticated,public,sign}/...). The devstack resizes
// nothing: it answers as a project with image transformation switched off, where storage-api
// registers no render routes at all (routes/render/index.ts returns before registering them),
// so every such request gets the router's not-found answer, before any token is looked at.
import { routeNotFound } from './shared';

export function renderRoute(): never {
  throw routeNotFound();
}
