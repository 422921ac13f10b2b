// executor/index.ts: the executor library's public surface (docs/design.md §9) for device makers, the demo
// and benchmarks: createExecutor (store, service, Core API app, outbox delivery, heartbeats,
// consent), the Hardware interface a device maker implements (or the simulated one), the device
// identity, attendance (§6.6), the local stop control, and the simulator. Nothing here runs at
// import time.

export { createExecutor, type Executor, type ExecutorDeps, type ExecutorOptions } from './executor.ts';
export { createExecutionService, type ExecutionService, type Hardware, type ChangeOptions } from './service.ts';
export { buildExecutorApp, executionView, CORE_VERSION } from './api.ts';
export { STATES, TRANSITIONS, SAFETY_STATES, transition, isFinal, type ExecutionState, type Reason } from './lifecycle.ts';
export { readExecutionRequest, type ExecutionRequest, type Dataset } from './request.ts';
export { planExecution, DEFAULT_PROFILE, type DeviceProfile, type Plan } from './plan.ts';
export { DEFAULT_SAFETY_LIMITS, mergeSafetyLimits, readSafetyLimits, type SafetyLimits, type Limits } from './safety-limits.ts';
export { OPERATIONS } from './vocabulary.ts';
export { buildStatusEvent, buildHeartbeat, buildConsentWithdrawn, LOCAL_SAFETY } from './events.ts';
export { openExecutorStore, type ExecutorStore, type ExecutionRecord } from './store.ts';
export { createDelivery, type Delivery, type DeliveryStats } from './outbox.ts';
export { createSequencerClient, ensureRegistered, type SequencerClient, type FetchLike } from './sequencer-client.ts';
export { loadOrCreateDevice, sourceOf, type DeviceIdentity } from './device-key.ts';
export { systemClock, fastClock, type Clock } from '../platform/index.ts';
export { createSimulatedHardware, type SimulatedHardware } from './runner.ts';
export { createAttendance, isAvailable, readAttendance, REACHABLE_LIMIT_S, type Attendance, type AttendanceState } from './attendance.ts';
export { startLocalControl, type LocalControl, type LocalControlTarget } from './local-control.ts';
export { missionFor, RECIPES, type MissionScript } from './missions.ts';
export {
  runSimulation,
  startSimulatedDevices,
  runMission,
  type SimulationOptions,
  type SimulatedDevice,
  type SimulationSummary,
} from './simulator.ts';
export { prng } from './missions.ts';
