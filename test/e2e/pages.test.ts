import request from 'supertest';
import { PAGES_CSP } from '../../services/api/http/pages';
import { useTestApi } from '../support/test-api';

// The pages as served (the browser walk is pages.browser.test.ts): each body inside the one layout.
describe('GET /hub, /sorter and /insights', () => {
  const api = useTestApi();

  it.each([
    ['/hub', 'hub', 'Sorting wall hub'],
    ['/sorter', 'sorter', 'Sorter'],
    ['/shipper', 'shipper', 'Shipper'],
    ['/insights', 'insights', 'Sorting insights'],
  ])('%s is a whole page: its title, script and body class, the shared sign-in form, no placeholder left', async (path, page, title) => {
    const res = await request(api.app).get(path).expect(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.headers['content-security-policy']).toBe(PAGES_CSP);
    expect(res.headers['cache-control']).toBe('no-cache');
    expect(res.text.startsWith('<!doctype html>')).toBe(true);
    expect(res.text).toContain(`<title>${title}</title>`);
    expect(res.text).toContain(`<script type="module" src="/hub/assets/${page}.js"></script>`);
    expect(res.text).toContain(`<body class="${page}">`);
    expect(res.text).toContain('<form class="card sign-in">');
    expect(res.text).not.toContain('{{');
    expect(res.text.trimEnd().endsWith('</html>')).toBe(true);
    // Revalidation: the same page again answers 304 to its ETag.
    await request(api.app).get(path).set('If-None-Match', res.headers.etag!).expect(304);
  });
});

// The pages and their assets are outside the route table (route-table.test.ts walks the API's routes):
// odd and hostile paths get a problem+json 4xx here too, never a file from outside the pages' folder.
describe('hostile paths under /hub, /sorter and /insights', () => {
  const api = useTestApi();

  it.each([
    '/hub/%00',
    '/sorter/%00',
    '/hub/assets/%00.js',
    '/hub/assets/%E0%A4%A',
    '/hub/assets/..%2f..%2fpackage.json',
    '/hub/assets/../../package.json',
    '/hub/assets/hub.html%00.js',
    // The folder's templates, type declarations and tsconfig are not assets.
    '/hub/assets/layout.html',
    '/hub/assets/types.d.ts',
    '/hub/assets/tsconfig.json',
    '/insights/%00',
    '/hub/vendor/%00',
    '/hub/vendor/chart.umd.min.js%00',
    '/hub/vendor/..%2f..%2fpackage.json',
    '/hub/vendor/../../package.json',
  ])('%s answers a 4xx problem', async (path) => {
    const res = await request(api.app).get(path);
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.text).not.toContain('"name": "sorting-wall-service"');
  });
});
