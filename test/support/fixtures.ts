// The data writers live in fixtures/ so that the bench can use them too without importing test support.
export * from '../../fixtures/floor-data';
