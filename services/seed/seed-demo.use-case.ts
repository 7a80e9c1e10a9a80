import type { EntityManager } from '@mikro-orm/postgresql';
import type { AppConfig } from '../../shared/config/config';
import type { Logger } from '../../shared/logging/logger';
import { hashSecret } from '../../shared/auth/password';
import { shipperBarcode, sorterBarcode } from '../../shared/domain/barcodes';
import { crc32Hex } from '../../shared/domain/crc';
import { priorityRank, type OrderPriority } from '../../shared/domain/priority';
import { Client, Employee, Order, OrderItem, Picklist, PicklistOrder, Product, PRODUCT_CODE_KINDS, ProductCode, SortBox, Wall, Warehouse, type Role, type ShipTo } from '../../shared/db/entities';
import { createClient } from '../../shared/tenancy/create-client.use-case';
import { emTransactionSql } from '../../shared/db/orm-sql';
import { seedLock } from './seed.queries';
import { seededRandom } from '../../shared/domain/prng';

export const DEMO_TEAM = 'demo';
export const DEMO_CLIENT_NAME = 'Demo Warehouse Co';

export interface DemoAccount {
  role: Role;
  email: string;
  password: string;
}

/** What a person needs to try the service on the seeded demo client. */
export interface DemoSignIn {
  clientId: number;
  team: string;
  accounts: DemoAccount[];
  wallId: number;
  picklistId: number;
  /** The first sort of the README's walkthrough: one scan fills and completes slot 1. */
  firstSort: DemoFirstSort;
  /** Barcodes to try the floor with: products an open order needs, and the first slot's codes. */
  barcodes: DemoBarcodes;
  /** The sign-in instructions, as plain text for a terminal. */
  banner: string;
}

/**
 * Order FIRST_SORT.orderId needs a single unit of one product and is the most urgent order holding it,
 * so the first scan of that product lands in it, in the first empty slot (slot 1), and one confirm
 * completes the slot: the walkthrough in the README (tested by running it) reaches the shipper at once.
 */
export interface DemoFirstSort {
  orderId: number;
  barcode: string;
  sku: string;
  title: string;
}

export interface DemoBarcodes {
  products: { barcode: string; kind: 'SKU' | 'UPC' | 'alias'; sku: string; title: string }[];
  slot: { position: number; crc: string; sorterBarcode: string; shipperBarcode: string };
}

// Well-known demo credentials, printed at start-up: the demo client is for trying things out only.
const ACCOUNTS: (DemoAccount & { firstName: string; lastName: string })[] = [
  { role: 'Admin', email: 'admin@demo.local', password: 'demo-admin-1', firstName: 'Ada', lastName: 'Admin' },
  { role: 'Manager', email: 'manager@demo.local', password: 'demo-manager-1', firstName: 'Max', lastName: 'Manager' },
  { role: 'Sorter', email: 'sorter1@demo.local', password: 'demo-sorter-1', firstName: 'Sam', lastName: 'Sorter' },
  { role: 'Sorter', email: 'sorter2@demo.local', password: 'demo-sorter-2', firstName: 'Sue', lastName: 'Sorter' },
];

const WAREHOUSE = {
  id: 1,
  name: 'Jackson St DC',
  address: '1200 Jackson St, Omaha, NE 68102, US',
  latitude: 41.2551,
  longitude: -95.9336,
};

interface DemoProduct {
  sku: string;
  title: string;
  price: number;
  aliases?: string[];
  shadowSkus?: string[];
}

const PRODUCTS: DemoProduct[] = [
  { sku: 'TSHIRT-BLK-M', title: 'Classic Tee, Black, M', price: 14.99, shadowSkus: ['TSHIRT-BLK-M-RTL'] },
  { sku: 'TSHIRT-WHT-L', title: 'Classic Tee, White, L', price: 14.99, shadowSkus: ['TSHIRT-WHT-L-RTL'] },
  { sku: 'MUG-CERAMIC-12OZ', title: 'Ceramic Mug, 12 oz', price: 9.5, aliases: ['MUG12'] },
  { sku: 'BOTTLE-STEEL-750', title: 'Steel Water Bottle, 750 ml', price: 24 },
  { sku: 'CABLE-USBC-1M', title: 'USB-C Cable, 1 m', price: 7.99, aliases: ['USBC1M'] },
  { sku: 'CHARGER-20W', title: 'USB-C Charger, 20 W', price: 19.99, shadowSkus: ['CHG20W-B'] },
  { sku: 'SOCKS-WOOL-3PK', title: 'Wool Socks, 3 pack', price: 18 },
  { sku: 'CAP-BASEBALL-NVY', title: 'Baseball Cap, Navy', price: 16.5, aliases: ['CAPNAVY'] },
  { sku: 'NOTEBOOK-A5-DOT', title: 'Notebook A5, dotted', price: 6.25 },
  { sku: 'PEN-GEL-BLU-10', title: 'Gel Pens, Blue, 10 pack', price: 8.75 },
  { sku: 'CANDLE-SOY-VAN', title: 'Soy Candle, Vanilla', price: 12 },
  { sku: 'TOWEL-BATH-GRY', title: 'Bath Towel, Grey', price: 21, aliases: ['TOWELGREY'] },
];

const ORDER_COUNT = 40;
const FIRST_ORDER_ID = 1001;
// The walkthrough's order (DemoFirstSort): Critical and older than every other order (those are placed
// within the last week), so the order choice (priority, then age) takes it for its product.
const FIRST_SORT = { orderId: 1000, sku: 'MUG-CERAMIC-12OZ', barcode: 'MUG12', bin: 'A-01-1', ageDays: 8 } as const;
const PICKLIST_ID = 1;
const PICKLIST_SIZE = 10;
const WALL = { name: 'Jackson St', maxSorters: 6, workflow: 'FreeSort', flowDirection: 'LeftToRight', segmentRows: 4, segmentColumns: 6 } as const;
const SLOT_COUNT = 24;
const FIRST_SERIAL = 0x0a000001;

const SHIP_TO: ShipTo[] = [
  { name: 'Maria Garcia', street1: '410 Elm St', city: 'Lincoln', state: 'NE', postalCode: '68508', country: 'US' },
  { name: 'James Smith', street1: '22 Lake Shore Dr', street2: 'Apt 5B', city: 'Chicago', state: 'IL', postalCode: '60611', country: 'US' },
  { name: 'Priya Patel', street1: '1580 Market St', city: 'Denver', state: 'CO', postalCode: '80202', country: 'US' },
  { name: 'Chen Wei', street1: '77 Pine Ave', city: 'Des Moines', state: 'IA', postalCode: '50309', country: 'US' },
  { name: 'Olivia Brown', street1: '9 Harbor Rd', city: 'Kansas City', state: 'MO', postalCode: '64105', country: 'US' },
  { name: 'Noah Johnson', street1: '301 Main St', street2: 'Suite 200', city: 'Sioux Falls', state: 'SD', postalCode: '57104', country: 'US' },
  { name: 'Emma Wilson', street1: '45 Oak Blvd', city: 'Minneapolis', state: 'MN', postalCode: '55401', country: 'US' },
  { name: 'Lucas Martin', street1: '18 Prairie Ln', city: 'Wichita', state: 'KS', postalCode: '67202', country: 'US' },
];

const PRIORITIES: OrderPriority[] = ['Normal', 'Normal', 'Normal', 'Normal', 'Normal', 'High', 'High', 'Low', 'Low', 'Critical'];

// Keeps the two seeders of a fresh deployment (say `npm start` and `npm run migrate -- --seed`) from
// both seeing an empty database: the second waits for the first to commit, then finds a client.
const SEED_LOCK_KEY = 727_001_122;

function shuffle<T>(list: T[], random: () => number): T[] {
  for (let i = list.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [list[i], list[j]] = [list[j]!, list[i]!];
  }
  return list;
}

/** A UPC-A with a valid check digit, so the demo codes scan like real ones. */
function upcA(eleven: string): string {
  const digits = [...eleven].map(Number);
  const sum = digits.reduce((s, d, i) => s + (i % 2 === 0 ? d * 3 : d), 0);
  return eleven + String((10 - (sum % 10)) % 10);
}

function money(n: number): number {
  return Math.round(n * 100) / 100;
}

/**
 * A few codes that resolve to products some open order needs (by UPC, alias and SKU), other than the
 * first sort's product, and slot 1's codes.
 */
function demoBarcodes(products: { sku: string; title: string; upc?: string | null; aliases: string[] }[], ordered: Set<string>): DemoBarcodes {
  const needed = products.filter((p) => ordered.has(p.sku) && p.sku !== FIRST_SORT.sku);
  const out: DemoBarcodes['products'] = [];
  const byUpc = needed.find((p) => p.upc);
  if (byUpc) out.push({ barcode: byUpc.upc!, kind: 'UPC', sku: byUpc.sku, title: byUpc.title });
  const byAlias = needed.find((p) => p.aliases.length && p !== byUpc);
  if (byAlias) out.push({ barcode: byAlias.aliases[0]!, kind: 'alias', sku: byAlias.sku, title: byAlias.title });
  const bySku = needed.find((p) => p !== byUpc && p !== byAlias);
  if (bySku) out.push({ barcode: bySku.sku, kind: 'SKU', sku: bySku.sku, title: bySku.title });
  const crc = crc32Hex(serialOf(0));
  return { products: out, slot: { position: 1, crc, sorterBarcode: sorterBarcode(crc), shipperBarcode: shipperBarcode(crc) } };
}

function serialOf(i: number): string {
  return `0x${(FIRST_SERIAL + i).toString(16).toUpperCase().padStart(8, '0')}`;
}

/**
 * Seeds the demo client on a database without any client (docs/api.md §10, `SEED_DEMO`): its four
 * employees, a warehouse, products, unshipped orders, an open picklist and a 24-slot wall, in one
 * transaction. Does nothing when any client exists. Returns the sign-in facts, or null when skipped.
 */
export async function seedDemo(
  em: EntityManager,
  config: Pick<AppConfig, 'PASSWORD_HASH_ROUNDS' | 'PORT'>,
  log: Logger,
): Promise<DemoSignIn | null> {
  // Cheap check first: on every start but the first there is nothing to do.
  if ((await em.fork().count(Client, {})) > 0) {
    log.debug('demo seed skipped: the database already has a client');
    return null;
  }
  const rounds = config.PASSWORD_HASH_ROUNDS;
  const hashes = new Map<string, string>();
  for (const a of ACCOUNTS.slice(1)) hashes.set(a.email, await hashSecret(a.password, rounds));

  const result = await em.transactional(async (tx) => {
    await seedLock(emTransactionSql(tx, false), { key: SEED_LOCK_KEY });
    if ((await tx.count(Client, {})) > 0) return null;

    const [admin, ...others] = ACCOUNTS;
    const created = await createClient(tx, {
      name: DEMO_CLIENT_NAME,
      team: DEMO_TEAM,
      adminEmail: admin!.email,
      adminPassword: admin!.password,
      adminFirstName: admin!.firstName,
      adminLastName: admin!.lastName,
      hashRounds: rounds,
    });
    const clientId = created.clientId;
    const now = new Date();
    for (const a of others) {
      tx.create(Employee, {
        clientId,
        email: a.email,
        firstName: a.firstName,
        lastName: a.lastName,
        roles: [a.role],
        passwordHash: hashes.get(a.email)!,
        isActive: true,
        createdAt: now,
      });
    }

    tx.create(Warehouse, { clientId, ...WAREHOUSE });

    const products = PRODUCTS.map((p, i) =>
      tx.create(Product, {
        clientId,
        sku: p.sku,
        title: p.title,
        upc: upcA(`0812345${String(i + 1).padStart(4, '0')}`),
        aliases: p.aliases ?? [],
        shadowSkus: p.shadowSkus ?? [],
        requiresTransparencyCode: false,
        kitComponents: [],
        sitePrice: p.price,
        stopLossPrice: money(p.price * 0.6),
        channelPrices: [
          { channelId: 1, price: money(p.price * 1.1), useDefaultSitePrice: false },
          { channelId: 2, price: p.price, useDefaultSitePrice: true },
        ],
        updatedAt: now,
      }),
    );
    await tx.flush(); // product ids for the codes
    for (const p of products) {
      const codes: [string, number][] = [
        [p.sku, PRODUCT_CODE_KINDS.sku],
        ...(p.upc ? [[p.upc, PRODUCT_CODE_KINDS.upc] as [string, number]] : []),
        ...p.shadowSkus.map((c) => [c, PRODUCT_CODE_KINDS.shadowSku] as [string, number]),
        ...p.aliases.map((c) => [c, PRODUCT_CODE_KINDS.alias] as [string, number]),
      ];
      for (const [code, kind] of codes) tx.create(ProductCode, { clientId, code: code.toUpperCase(), kind, productId: p.id });
    }

    const random = seededRandom(20261122);
    const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
    const lines: { orderId: number; sku: string; qty: number; bin: string }[] = [];
    for (let n = 0; n < ORDER_COUNT; n++) {
      const id = FIRST_ORDER_ID + n;
      const priority = pick(PRIORITIES);
      // Within the last week, so `recent=true` listings show them.
      const orderDate = new Date(now.getTime() - Math.floor(random() * 7 * 24 * 60) * 60_000);
      tx.create(Order, {
        clientId,
        id,
        warehouseId: WAREHOUSE.id,
        orderDate,
        priority,
        priorityRank: priorityRank(priority),
        isDropShip: false,
        status: 'Unshipped',
        shipTo: SHIP_TO[n % SHIP_TO.length]!,
        createdAt: now,
        updatedAt: now,
      });
      const lineCount = 1 + Math.floor(random() * 4);
      const skus = shuffle([...PRODUCTS], random).slice(0, lineCount);
      for (const p of skus) {
        const aisle = 'ABCD'[Math.floor(random() * 4)];
        const bin = `${aisle}-${String(1 + Math.floor(random() * 12)).padStart(2, '0')}-${1 + Math.floor(random() * 5)}`;
        lines.push({ orderId: id, sku: p.sku, qty: 1 + Math.floor(random() * 3), bin });
      }
    }
    tx.create(Order, {
      clientId,
      id: FIRST_SORT.orderId,
      warehouseId: WAREHOUSE.id,
      orderDate: new Date(now.getTime() - FIRST_SORT.ageDays * 24 * 3600_000),
      priority: 'Critical',
      priorityRank: priorityRank('Critical'),
      isDropShip: false,
      status: 'Unshipped',
      shipTo: { name: 'Ana Ruiz', street1: '1200 Jackson St', street2: 'Suite 4', city: 'Omaha', state: 'NE', postalCode: '68102', country: 'US' },
      createdAt: now,
      updatedAt: now,
    });
    lines.push({ orderId: FIRST_SORT.orderId, sku: FIRST_SORT.sku, qty: 1, bin: FIRST_SORT.bin });
    // Foreign keys are scalar columns, so the unit of work does not know the insert order: flush
    // the orders before the rows that reference them.
    await tx.flush();
    for (const l of lines) {
      tx.create(OrderItem, { clientId, orderId: l.orderId, sku: l.sku, qty: l.qty, confirmedQty: 0, pendingQty: 0, bins: [l.bin] });
    }

    tx.create(Picklist, { clientId, id: PICKLIST_ID, status: 'Open', updatedAt: now });
    const wall = tx.create(Wall, { clientId, ...WALL, isActive: true, warehouseId: WAREHOUSE.id, createdAt: now, updatedAt: now });
    await tx.flush();

    for (let n = 0; n < PICKLIST_SIZE; n++) tx.create(PicklistOrder, { clientId, picklistId: PICKLIST_ID, orderId: FIRST_ORDER_ID + n });
    for (let i = 0; i < SLOT_COUNT; i++) {
      const serialNumber = serialOf(i);
      tx.create(SortBox, { clientId, wallId: wall.id, serialNumber, crc: crc32Hex(serialNumber), position: i + 1, status: 'Empty', createdAt: now });
    }
    await tx.flush();
    const firstSort: DemoFirstSort = {
      orderId: FIRST_SORT.orderId,
      barcode: FIRST_SORT.barcode,
      sku: FIRST_SORT.sku,
      title: PRODUCTS.find((p) => p.sku === FIRST_SORT.sku)!.title,
    };
    return { clientId, team: created.team, wallId: wall.id, firstSort, barcodes: demoBarcodes(products, new Set(lines.map((l) => l.sku))) };
  });

  if (!result) {
    log.debug('demo seed skipped: another process created a client meanwhile');
    return null;
  }
  const base = `http://localhost:${config.PORT}`;
  const slot = result.barcodes.slot;
  const banner = [
    '',
    '==================================================================',
    ` Demo client seeded: "${DEMO_CLIENT_NAME}" (team "${DEMO_TEAM}")`,
    ` Wall "${WALL.name}" (id ${result.wallId}, ${SLOT_COUNT} slots), ${ORDER_COUNT + 1} unshipped orders, open picklist ${PICKLIST_ID}`,
    '',
    ' Sign in (get a bearer token):',
    `   curl -s -X POST ${base}/token -H 'Content-Type: application/json' \\`,
    `        -d '{"username":"${ACCOUNTS[0]!.email}","password":"${ACCOUNTS[0]!.password}"}'`,
    '',
    ' Accounts:',
    ...ACCOUNTS.map((a) => `   ${a.role.padEnd(8)} ${a.email.padEnd(20)} ${a.password}`),
    '',
    ' A first sort (step by step with curl: "A first sort" in the README):',
    `   connect  POST /api/v1/walls/${result.wallId}/sessions as a sorter`,
    `   scan     ${result.firstSort.barcode} (alias of ${result.firstSort.sku}): order ${result.firstSort.orderId} needs just that unit; slot ${slot.position} lights`,
    `   confirm  ${slot.sorterBarcode} (slot ${slot.position}, front): order ${result.firstSort.orderId} is complete`,
    `   release  ${slot.shipperBarcode} (slot ${slot.position}, back: the shipper), after printing its license plate`,
    '',
    ' More barcodes to scan (products other open orders need):',
    ...result.barcodes.products.map((b) => `   ${b.barcode.padEnd(16)} ${b.kind.padEnd(5)} of ${b.sku} (${b.title})`),
    '',
    ` API docs: ${base}/api/v1/docs    OpenAPI: ${base}/api/v1/openapi.json`,
    ' Demo credentials are public: set SEED_DEMO=false in production.',
    '==================================================================',
  ].join('\n');
  log.info({ team: DEMO_TEAM, clientId: result.clientId, adminEmail: ACCOUNTS[0]!.email }, 'demo client seeded');
  return {
    ...result,
    picklistId: PICKLIST_ID,
    accounts: ACCOUNTS.map(({ role, email, password }) => ({ role, email, password })),
    banner,
  };
}
