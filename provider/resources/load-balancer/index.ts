/**
 * HarvesterLoadBalancer: Harvester's built-in load balancer for VM workloads. Model (model.ts) → rules and plan
 * (validate.ts, plan.ts; pure) → handlers.ts (the API).
 */
export { createLoadBalancerProvider, explainNotReady, type LoadBalancerProvider, type LoadBalancerProviderOptions } from './handlers';
export { loadBalancerSchema, loadBalancerOutputsSchema, SECRET_INPUTS, HEALTH_CHECK_DEFAULTS, type LoadBalancerInputs, type LoadBalancerArgs, type LoadBalancerOutputs } from './model';
export { desiredLoadBalancer, liveInputs, driftOf, diffInputs } from './plan';
export { validateInputs } from './validate';
