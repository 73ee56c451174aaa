// The fake Hugging Face endpoint lives with the simcluster (the benchmark and the takeover use it too).
export * from '../../../src/simcluster/fake-hub.js';
