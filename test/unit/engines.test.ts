import { readFileSync } from 'node:fs';
import path from 'node:path';
import semver from 'semver';

// `npm ci` warns (EBADENGINE) for every installed package whose `engines.node` does not accept the
// running Node; the lock file records each one's, so the check needs no install.
const lock = JSON.parse(readFileSync(path.join(__dirname, '../../package-lock.json'), 'utf8')) as {
  packages: Record<string, { version?: string; engines?: { node?: string } | string[]; optional?: boolean }>;
};

describe('every locked package accepts the Node the service runs on', () => {
  it(`accepts Node ${process.versions.node}: npm ci prints no engine warning`, () => {
    const refused = Object.entries(lock.packages)
      .filter(([, p]) => p.engines && !Array.isArray(p.engines) && p.engines.node && !semver.satisfies(process.versions.node, p.engines.node, { includePrerelease: true }))
      .map(([name, p]) => `${name.replace(/^.*node_modules\//, '')}@${p.version} wants node ${(p.engines as { node: string }).node}`);
    expect(refused).toEqual([]);
  });

  it('the service itself asks for Node 20.19 or later (aedes, an ES module, is loaded with require()), and geoip-lite is pinned to a release that runs on it', () => {
    expect(lock.packages['']!.engines).toEqual({ node: '>=20.19' });
    const pkg = JSON.parse(readFileSync(path.join(__dirname, '../../package.json'), 'utf8')) as { engines: { node: string } };
    expect(pkg.engines).toEqual({ node: '>=20.19' });
    // Every locked package accepts the lowest Node the service asks for, not only the one running the test.
    const lowest = semver.minVersion(pkg.engines.node)!.version;
    const refused = Object.entries(lock.packages).filter(([, p]) => p.engines && !Array.isArray(p.engines) && p.engines.node && !semver.satisfies(lowest, p.engines.node));
    expect(refused.map(([name]) => name)).toEqual([]);
    const geo = lock.packages['node_modules/geoip-lite']!;
    expect(semver.satisfies('20.0.0', (geo.engines as { node: string }).node)).toBe(true);
  });
});
