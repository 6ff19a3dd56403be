/**
 * The registry's command set, the argument checks every front runs before it publishes a command, and the one
 * dispatcher that applies a command to the state machine, shared by the in-process and the clustered front.
 */
package dev.offcache.registry.command;
