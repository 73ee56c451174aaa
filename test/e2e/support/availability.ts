// The availability oracle of the e2e tests: a watch on a Service's EndpointSlices and its gaps. It lives
// in src/simcluster/availability.ts, which the benchmark's update scenario uses as well.
export {
  gapsOf,
  gapsWithin,
  readyPodsOf,
  watchAvailability,
  type AvailabilityWatch,
  type Gap,
  type ReadySample,
} from '../../../src/simcluster/availability.js';
