// A Mosquitto of the test's own (fixtures/local-servers.ts, shared with the bench).
export { startOwnMosquitto, type OwnMosquitto, type OwnMosquittoOptions } from '../../fixtures/local-servers';
