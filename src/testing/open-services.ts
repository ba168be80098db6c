// The test services a test opened, closed by the shared setup after each test (after the
// screens are unmounted), so no test file repeats that cleanup or leaks an engine.
const open = new Set<{ close(): Promise<void> }>();

export function trackServices(services: { close(): Promise<void> }): void {
  open.add(services);
}

export function untrackServices(services: { close(): Promise<void> }): void {
  open.delete(services);
}

export async function closeAllTestServices(): Promise<void> {
  const closing = [...open];
  open.clear();
  await Promise.all(closing.map((services) => services.close()));
}
