// The controller runtime's public surface: import from here, not from the individual files.
export * from './builder.js';
export * from './cache.js';
export * from './client.js';
export * from './controller.js';
export * from './errors.js';
export * from './events.js';
export * from './kubeconfig.js';
export * from './label-selector.js';
export * from './log.js';
export * from './mappers.js';
export * from './rate-limit.js';
export * from './reflector.js';
export * from './resources.js';
export * from './status.js';
export * from './transport.js';
export * from './workqueue.js';
