// Fault injection for sync tests lives in the sync kit (sync/kit/faults.ts), which app
// developers use too; the project's suites import it from here as they always have.
export {
  cuttableWebSocket,
  FAULTS,
  FaultyNetwork,
  seededRandom,
  type Fault,
  type FaultyNetworkOptions,
} from '../../sync/kit/faults';
