import request from 'supertest';
import { addProducts } from '../support/fixtures';
import { newTenant, signedInEmployee, useTestApi, type Tenant } from '../support/test-api';

const PRICES = '/catalog/rest/api/Catalog/Prices';
const obsolete = (productId: string) => `/catalog/api/Catalog/${encodeURIComponent(productId)}/Prices`;

describe('Catalog prices', () => {
  const api = useTestApi();
  let a: Tenant;
  let b: Tenant;
  let widgetId: number;
  let otherTenantProductId: number;

  const widgetPrices = {
    StopLossPrice: 12.5,
    SitePrice: 19.99,
    ChannelsPrices: [
      { ChannelID: 3, Price: 21.5, UseDefaultSitePrice: false },
      { ChannelID: 7, Price: 19.99, UseDefaultSitePrice: true },
    ],
  };

  beforeAll(async () => {
    a = await newTenant(api, 'Catalog A');
    b = await newTenant(api, 'Catalog B');
    const em = api.runtime.orm.em.fork();
    const [widget] = await addProducts(em, a.clientId, [
      {
        sku: 'WIDGET-1',
        sitePrice: 19.99,
        stopLossPrice: 12.5,
        channelPrices: [
          { channelId: 3, price: 21.5, useDefaultSitePrice: false },
          { channelId: 7, price: 19.99, useDefaultSitePrice: true },
        ],
      },
      { sku: 'A/B 10%', sitePrice: 5, stopLossPrice: 4.25 },
      { sku: 'NO-PRICES' },
      { sku: '987654321', sitePrice: 1 },
    ]);
    widgetId = widget!.id;
    const [theirs] = await addProducts(em, b.clientId, [{ sku: 'THEIRS', sitePrice: 3 }]);
    otherTenantProductId = theirs!.id;
  });

  const get = (path: string, auth: string | null, query?: Record<string, string>) => {
    const req = request(api.app).get(path).set('Content-Type', 'application/json');
    if (auth) req.set('Authorization', auth);
    return query ? req.query(query) : req;
  };

  it('answers the price record by numeric product id', async () => {
    const res = await get(PRICES, a.auth, { productID: String(widgetId) });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/application\/json/);
    expect(res.body).toEqual(widgetPrices);
    expect(res.headers).not.toHaveProperty('deprecation');
  });

  it('answers by SKU, with special characters', async () => {
    const bySku = await get(PRICES, a.auth, { productID: 'WIDGET-1' });
    expect(bySku.body).toEqual(widgetPrices);
    const special = await get(PRICES, a.auth, { productID: 'A/B 10%' });
    expect(special.status).toBe(200);
    expect(special.body).toEqual({ StopLossPrice: 4.25, SitePrice: 5, ChannelsPrices: [] });
    // Written by hand too, as an integrator would.
    const raw = await get(`${PRICES}?productID=A%2FB%2010%25`, a.auth);
    expect(raw.body).toEqual(special.body);
  });

  it('looks an all-digit identifier up as a SKU when it is no product id of the client', async () => {
    const res = await get(PRICES, a.auth, { productID: '987654321' });
    expect(res.status).toBe(200);
    expect(res.body.SitePrice).toBe(1);
  });

  it('answers null prices and no channels for a product without prices', async () => {
    const res = await get(PRICES, a.auth, { productID: 'NO-PRICES' });
    expect(res.body).toEqual({ StopLossPrice: null, SitePrice: null, ChannelsPrices: [] });
  });

  it('answers any role, a Sorter included', async () => {
    const sorter = await signedInEmployee(api, a, { roles: ['Sorter'] });
    const res = await get(PRICES, sorter.auth, { productID: 'WIDGET-1' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(widgetPrices);
  });

  it('answers 404 for an unknown product and for another client\'s product, by id and by SKU', async () => {
    for (const productID of [String(otherTenantProductId), 'THEIRS', 'NOPE', '2147483647', '99999999999']) {
      const res = await get(PRICES, a.auth, { productID });
      expect(res.status).toBe(404);
      expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
      expect(res.body.code).toBe('not-found');
      expect(res.body.detail).toContain(productID);
    }
    const own = await get(PRICES, b.auth, { productID: 'THEIRS' });
    expect(own.status).toBe(200);
    expect(own.body.SitePrice).toBe(3);
  });

  it('answers 400 without productID', async () => {
    const res = await get(PRICES, a.auth);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'validation-failed', errors: [{ path: 'productID' }] });
  });

  it('answers 401 without a token or with a bad one', async () => {
    for (const path of [`${PRICES}?productID=WIDGET-1`, obsolete('WIDGET-1')]) {
      const none = await get(path, null);
      expect(none.status).toBe(401);
      expect(none.body.code).toBe('unauthorized');
      const bad = await get(path, 'Bearer not-a-token');
      expect(bad.status).toBe(401);
      expect(bad.body.code).toBe('unauthorized');
    }
  });

  describe('obsolete GET /api/Catalog/{productID}/Prices', () => {
    it('answers the same record, with Deprecation and a Link to its successor', async () => {
      const res = await get(obsolete('A/B 10%'), a.auth);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ StopLossPrice: 4.25, SitePrice: 5, ChannelsPrices: [] });
      expect(res.headers.deprecation).toBe('true');
      expect(res.headers.link).toBe('</catalog/rest/api/Catalog/Prices?productID=A%2FB%2010%25>; rel="successor-version"');
      const byId = await get(obsolete(String(widgetId)), a.auth);
      expect(byId.body).toEqual(widgetPrices);
      expect(byId.headers.link).toBe(`</catalog/rest/api/Catalog/Prices?productID=${widgetId}>; rel="successor-version"`);
    });

    it('answers 404 for another client\'s product', async () => {
      const res = await get(obsolete(String(otherTenantProductId)), a.auth);
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('not-found');
    });

    it('is marked deprecated in the OpenAPI document', async () => {
      const doc = await request(api.app).get('/api/v1/openapi.json');
      expect(doc.body.paths['/catalog/api/Catalog/{productID}/Prices'].get.deprecated).toBe(true);
      expect(doc.body.paths['/catalog/rest/api/Catalog/Prices'].get.deprecated).toBeUndefined();
    });
  });
});
