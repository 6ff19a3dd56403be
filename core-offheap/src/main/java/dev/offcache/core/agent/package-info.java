/**
 * What the agents share: how an agent's errors are counted and logged, and an idle strategy that parks until the
 * work's producer signals it.
 */
package dev.offcache.core.agent;
