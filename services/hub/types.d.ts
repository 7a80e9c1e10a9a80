// Generated from the API's zod schemas (each operation's answer, the event types' data in
// shared/events/event-schemas.ts) by `npm run pages:types`: do not edit.
// The pages (services/hub/*.js) are checked against these declarations by `npm run lint`.

/** What each operation answers (its JSON body on success), by its operationId in the OpenAPI document. */
export interface Responses {
  /** POST /token: Sign in: exchange an e-mail and password for a bearer token (JWT) */
  CreateToken: {
    access_token: string;
    token_type: 'Bearer';
    expires_in: number;
  };
  /** POST /admin/queues/session: Open the queue dashboard: sets a short-lived cookie for /admin/queues */
  OpenQueueDashboard: {
    url: string;
    expiresIn: number;
  };
  /** GET /admin/queues/session: Say whether you may open the queue dashboard (an Admin listed in QUEUE_DASHBOARD_ADMINS) */
  GetQueueDashboardAccess: {
    allowed: boolean;
  };
  /** PUT /api/v1/admin/warehouses: Create or replace warehouses by id */
  UpsertWarehouses: {
    /** Rows written (created + updated) */
    upserted: number;
    created: number;
    updated: number;
    /** Every row as stored, in request order */
    items: {
      id: number;
      name: string;
      address: string | null;
      latitude: number | null;
      longitude: number | null;
      timeZone: string | null;
    }[];
  };
  /** PUT /api/v1/admin/products: Create or replace products by SKU, with the codes a scan resolves (SKU, UPC, shadow SKUs, aliases) */
  UpsertProducts: {
    /** Rows written (created + updated) */
    upserted: number;
    created: number;
    updated: number;
    /** Every row as stored, in request order */
    items: {
      /** The service's own product id (the catalog's productID) */
      id: number;
      sku: string;
      title: string;
      upc: string | null;
      aliases: string[];
      shadowSkus: string[];
      requiresTransparencyCode: boolean;
      requiresSerial: boolean;
      kitComponents: {
        sku: string;
        qty: number;
      }[];
      sitePrice: number | null;
      stopLossPrice: number | null;
      channelPrices: {
        channelId: number;
        price: number;
        useDefaultSitePrice: boolean;
      }[];
    }[];
  };
  /** GET /api/v1/admin/products: List the loaded products, a page at a time */
  ListProducts: {
    items: {
      /** The service's own product id (the catalog's productID) */
      id: number;
      sku: string;
      title: string;
      upc: string | null;
      aliases: string[];
      shadowSkus: string[];
      requiresTransparencyCode: boolean;
      requiresSerial: boolean;
      kitComponents: {
        sku: string;
        qty: number;
      }[];
      sitePrice: number | null;
      stopLossPrice: number | null;
      channelPrices: {
        channelId: number;
        price: number;
        useDefaultSitePrice: boolean;
      }[];
    }[];
    /** Pass as cursor for the next page; null on the last page. */
    nextCursor: string | null;
  };
  /** PUT /api/v1/admin/orders: Create or replace orders by id, keeping their sorting progress */
  UpsertOrders: {
    /** Rows written (created + updated) */
    upserted: number;
    created: number;
    updated: number;
    /** Every row as stored, in request order */
    items: {
      id: number;
      warehouseId: number;
      orderDate: string;
      priority: 'Low' | 'Normal' | 'High' | 'Critical';
      isDropShip: boolean;
      status: 'Unshipped' | 'Shipped';
      shippedAt: string | null;
      shipTo: {
        name: string;
        street1: string;
        street2: string | null;
        city: string;
        state: string | null;
        postalCode: string;
        country: string;
      };
      items: {
        sku: string;
        qty: number;
        /** Units confirmed into a slot */
        sortedQty: number;
        /** Units scanned, awaiting confirmation */
        pendingQty: number;
        bins: string[];
      }[];
    }[];
  };
  /** POST /api/v1/admin/orders/{id}/ship: Mark an order shipped: it leaves the unshipped listings and no scan matches it any more */
  ShipOrder: {
    id: number;
    warehouseId: number;
    orderDate: string;
    priority: 'Low' | 'Normal' | 'High' | 'Critical';
    isDropShip: boolean;
    status: 'Unshipped' | 'Shipped';
    shippedAt: string | null;
    shipTo: {
      name: string;
      street1: string;
      street2: string | null;
      city: string;
      state: string | null;
      postalCode: string;
      country: string;
    };
    items: {
      sku: string;
      qty: number;
      /** Units confirmed into a slot */
      sortedQty: number;
      /** Units scanned, awaiting confirmation */
      pendingQty: number;
      bins: string[];
    }[];
  };
  /** PUT /api/v1/admin/picklists: Create or replace picklists by id, with their orders */
  UpsertPicklists: {
    /** Rows written (created + updated) */
    upserted: number;
    created: number;
    updated: number;
    /** Every row as stored, in request order */
    items: {
      id: number;
      status: 'Open' | 'Closed';
      orderIds: number[];
    }[];
  };
  /** POST /api/v1/admin/orders/import: Import orders from a CSV file or a JSON array, or check the file with dryRun */
  ImportOrders: {
    dryRun: boolean;
    /** Whether the rows were written: never in a dry run */
    imported: boolean;
    /** Data rows read: a CSV's records after its header, or the JSON array's elements */
    rowsRead: number;
    /** The orders, products or picklists those rows make */
    records: number;
    /** Records not stored yet: created by the import */
    created: number;
    /** Records stored already: replaced whole by the import */
    updated: number;
    problemCount: number;
    /** Every problem, by row (at most 10000) */
    problems: {
      /** CSV: the row as a spreadsheet numbers it (the header is 1). JSON: the element's index (from 0) */
      row: number;
      /** CSV: the column name. JSON: the field within the element (items[0].qty). Empty: the whole row or file */
      column: string;
      /** unknown-warehouse, unknown-sku, bad-date, duplicate-id, bad-quantity, order-sorting, ... (docs/api.md §3) */
      code: string;
      detail: string;
    }[];
  };
  /** POST /api/v1/admin/products/import: Import products from a CSV file or a JSON array, or check the file with dryRun */
  ImportProducts: {
    dryRun: boolean;
    /** Whether the rows were written: never in a dry run */
    imported: boolean;
    /** Data rows read: a CSV's records after its header, or the JSON array's elements */
    rowsRead: number;
    /** The orders, products or picklists those rows make */
    records: number;
    /** Records not stored yet: created by the import */
    created: number;
    /** Records stored already: replaced whole by the import */
    updated: number;
    problemCount: number;
    /** Every problem, by row (at most 10000) */
    problems: {
      /** CSV: the row as a spreadsheet numbers it (the header is 1). JSON: the element's index (from 0) */
      row: number;
      /** CSV: the column name. JSON: the field within the element (items[0].qty). Empty: the whole row or file */
      column: string;
      /** unknown-warehouse, unknown-sku, bad-date, duplicate-id, bad-quantity, order-sorting, ... (docs/api.md §3) */
      code: string;
      detail: string;
    }[];
  };
  /** POST /api/v1/admin/picklists/import: Import picklists from a CSV file or a JSON array, or check the file with dryRun */
  ImportPicklists: {
    dryRun: boolean;
    /** Whether the rows were written: never in a dry run */
    imported: boolean;
    /** Data rows read: a CSV's records after its header, or the JSON array's elements */
    rowsRead: number;
    /** The orders, products or picklists those rows make */
    records: number;
    /** Records not stored yet: created by the import */
    created: number;
    /** Records stored already: replaced whole by the import */
    updated: number;
    problemCount: number;
    /** Every problem, by row (at most 10000) */
    problems: {
      /** CSV: the row as a spreadsheet numbers it (the header is 1). JSON: the element's index (from 0) */
      row: number;
      /** CSV: the column name. JSON: the field within the element (items[0].qty). Empty: the whole row or file */
      column: string;
      /** unknown-warehouse, unknown-sku, bad-date, duplicate-id, bad-quantity, order-sorting, ... (docs/api.md §3) */
      code: string;
      detail: string;
    }[];
  };
  /** GET /api/v1/admin/employees: List your company's employees */
  ListEmployees: {
    id: number;
    email: string;
    firstName: string;
    lastName: string;
    roles: Array<'Admin' | 'Manager' | 'Sorter'>;
    isActive: boolean;
  }[];
  /** POST /api/v1/admin/employees: Create an employee of your company */
  CreateEmployee: {
    id: number;
    email: string;
    firstName: string;
    lastName: string;
    roles: Array<'Admin' | 'Manager' | 'Sorter'>;
    isActive: boolean;
  };
  /** PATCH /api/v1/admin/employees/{id}: Change an employee: names, password, roles, active flag (only the fields given) */
  UpdateEmployee: {
    id: number;
    email: string;
    firstName: string;
    lastName: string;
    roles: Array<'Admin' | 'Manager' | 'Sorter'>;
    isActive: boolean;
  };
  /** GET /api/v1/admin/security/pin: Whether your company has a PIN, its length, and where it is enforced */
  GetSecurityPin: {
    /** 0 when no PIN is set */
    pinLength: number;
    enforcement: 'client' | 'server';
  };
  /** PUT /api/v1/admin/security/pin: Set or remove the company's PIN and choose where it is enforced */
  SetSecurityPin: {
    /** 0 when no PIN is set */
    pinLength: number;
    enforcement: 'client' | 'server';
  };
  /** PUT /api/v1/admin/subscriptions/sorting: Enable (free) or disable the sorting subscription */
  SetSortingSubscription: {
    enabled: boolean;
  };
  /** GET /api/v1/admin/subscriptions/sorting/usage: Slots used in a month: the billing figure */
  GetSortingUsage: {
    month: string;
    slotsUsed: number;
  };
  /** GET /api/v1/employees/me: The signed-in employee */
  GetAuthenticatedEmployee: {
    id: number;
    email: string;
    firstName: string;
    lastName: string;
    roles: Array<'Admin' | 'Manager' | 'Sorter'>;
    isActive: boolean;
  };
  /** GET /api/v1/employees/by-email/{email}: An employee of your company by e-mail address (any letter case) */
  GetEmployeeByEmail: {
    id: number;
    email: string;
    firstName: string;
    lastName: string;
    roles: Array<'Admin' | 'Manager' | 'Sorter'>;
    isActive: boolean;
  };
  /** GET /api/v1/employees/{id}: An employee of your company by id */
  GetEmployee: {
    id: number;
    email: string;
    firstName: string;
    lastName: string;
    roles: Array<'Admin' | 'Manager' | 'Sorter'>;
    isActive: boolean;
  };
  /** GET /api/v1/security/pin/length: The length of your company's PIN; 0 means no PIN is configured or required */
  GetPinLength: number;
  /** POST /api/v1/security/pin/validate: Check a PIN against your company's PIN */
  ValidatePin: {
    valid: boolean;
  };
  /** GET /api/v1/subscriptions/sorting: Whether your company's sorting subscription is enabled */
  GetSortingSubscription: boolean;
  /** POST /api/v1/walls: Create a wall */
  CreateWall: {
    id: number;
    name: string;
    isActive: boolean;
    maxSorters: number;
    warehouseId: number | null;
    workflow: 'FreeSort' | 'PicklistSort';
    flowDirection: 'LeftToRight' | 'RightToLeft' | 'TopToBottom' | 'BottomToTop';
    segmentRows: number | null;
    segmentColumns: number | null;
    createdAt: string;
    /** Slots (sort boxes) attached to the wall. */
    slotCount: number;
    /** Sessions of the wall in status Connected. */
    connectedSorters: number;
    /** The wall's label printer (GET /printers); null: none, the shipper prints PDFs */
    printerId: number | null;
    /** Whether the wall prints an order's license plate on its printer by itself when the order becomes complete */
    autoPrint: boolean;
  };
  /** GET /api/v1/walls: List your company's walls with their slot and connected-sorter counts */
  ListWalls: {
    id: number;
    name: string;
    isActive: boolean;
    maxSorters: number;
    warehouseId: number | null;
    workflow: 'FreeSort' | 'PicklistSort';
    flowDirection: 'LeftToRight' | 'RightToLeft' | 'TopToBottom' | 'BottomToTop';
    segmentRows: number | null;
    segmentColumns: number | null;
    createdAt: string;
    /** Slots (sort boxes) attached to the wall. */
    slotCount: number;
    /** Sessions of the wall in status Connected. */
    connectedSorters: number;
    /** The wall's label printer (GET /printers); null: none, the shipper prints PDFs */
    printerId: number | null;
    /** Whether the wall prints an order's license plate on its printer by itself when the order becomes complete */
    autoPrint: boolean;
  }[];
  /** GET /api/v1/walls/{id}: Get a wall with its slots, connected sessions and pending scans */
  GetWall: {
    id: number;
    name: string;
    isActive: boolean;
    maxSorters: number;
    warehouseId: number | null;
    workflow: 'FreeSort' | 'PicklistSort';
    flowDirection: 'LeftToRight' | 'RightToLeft' | 'TopToBottom' | 'BottomToTop';
    segmentRows: number | null;
    segmentColumns: number | null;
    createdAt: string;
    /** Slots (sort boxes) attached to the wall. */
    slotCount: number;
    /** Sessions of the wall in status Connected. */
    connectedSorters: number;
    /** Every slot of the wall, ordered by position. */
    slots: {
      id: number;
      wallId: number;
      /** Hardware serial number of the light device */
      serialNumber: string;
      /** CRC-32 of the serial number, 8 upper-case hex digits: the barcode on the device */
      crc: string;
      /** A-<crc>, on the front: confirms scans */
      sorterBarcode: string;
      /** B-<crc>, on the back: releases a Complete slot */
      shipperBarcode: string;
      /** 1-based position on the wall */
      position: number;
      status: 'Empty' | 'Sorting' | 'Complete';
      /** The order the slot holds; null when Empty */
      orderId: number | null;
    }[];
    /** The connected sessions of the wall, oldest first. */
    sessions: {
      /** The session id: what events and audit logs name the session by. */
      id: number;
      /** The session token; null for another employee's session unless the caller is a Manager or Admin. */
      token: string | null;
      wallId: number;
      /** The employee connected */
      userId: number;
      /** The Open picklist the session sorts; null: any order of the wall */
      picklistId: number | null;
      /** The sorter's color on this wall: the first of the palette no other connected session holds */
      color: 'Red' | 'Blue' | 'Yellow' | 'Green' | 'Magenta' | 'Cyan';
      /** The color as #RRGGBB */
      colorHex: string;
      status: 'Connected' | 'Ended';
      /** ISO 8601 UTC */
      startedAt: string;
      /** The last connect, renew, scan, confirm, cancel or swap */
      lastActivityAt: string;
      /** When the session ends without further activity (Expired) */
      expiresAt: string;
      /** null while Connected */
      endedAt: string | null;
      /** Stopped, Replaced, Expired or Disconnected; null while Connected */
      endReason: 'Stopped' | 'Replaced' | 'Expired' | 'Disconnected' | null;
      /** The sorter's name (first and last) */
      userName: string;
    }[];
    /** Scans waiting for confirmation (status PendingConfirmation), oldest first: the slots lit now, each in its sorter's color. */
    pendingItems: {
      id: number;
      wallId: number;
      /** The slot the unit goes into */
      crc: string;
      /** A-<crc>: scanning it confirms the item */
      sorterBarcode: string;
      /** The slot position on the wall (1-based); 0 when the slot was detached since */
      position: number;
      status: 'PendingConfirmation' | 'Confirmed' | 'Cancelled';
      /** Units the scan reserved (1) */
      units: number;
      /** Units confirmed; 0 until confirmed */
      confirmedUnits: number;
      /** The order the unit was assigned to */
      orderId: number;
      /** The product the barcode resolved to */
      sku: string;
      /** The barcode as scanned */
      barcode: string;
      barcodeInputMethod: 'Scanned' | 'Typed' | 'KeyedIn' | 'EmbeddedScanner' | 'Camera';
      /** The employee who scanned */
      userId: number;
      /** The sorter's color the slot lights in */
      color: 'Red' | 'Blue' | 'Yellow' | 'Green' | 'Magenta' | 'Cyan';
      /** The color as #RRGGBB */
      colorHex: string;
      /** The order line's quantity of this SKU */
      requiredUnits: number;
      /** Units of this SKU the order still needs after this scan (required - confirmed - pending) */
      remainingUnits: number;
      /** ISO 8601 UTC */
      createdAt: string;
      /** null unless Confirmed */
      confirmedAt: string | null;
      /** null unless Cancelled */
      cancelledAt: string | null;
      /** The product required a serial number per unit when it was scanned: the confirm must carry the unit's serial */
      requiresSerial: boolean;
      /** The serial number confirmed with the unit; null until confirmed, and for products without serials */
      serial: string | null;
      /** The sorter's name (first and last), as the hub shows it */
      userName: string;
    }[];
    /** The wall's label printer (GET /printers); null: none, the shipper prints PDFs */
    printerId: number | null;
    /** Whether the wall prints an order's license plate on its printer by itself when the order becomes complete */
    autoPrint: boolean;
  };
  /** GET /api/v1/walls/{id}/pending-items: List a wall's scans waiting for confirmation */
  ListWallPendingItems: {
    id: number;
    wallId: number;
    /** The slot the unit goes into */
    crc: string;
    /** A-<crc>: scanning it confirms the item */
    sorterBarcode: string;
    /** The slot position on the wall (1-based); 0 when the slot was detached since */
    position: number;
    status: 'PendingConfirmation' | 'Confirmed' | 'Cancelled';
    /** Units the scan reserved (1) */
    units: number;
    /** Units confirmed; 0 until confirmed */
    confirmedUnits: number;
    /** The order the unit was assigned to */
    orderId: number;
    /** The product the barcode resolved to */
    sku: string;
    /** The barcode as scanned */
    barcode: string;
    barcodeInputMethod: 'Scanned' | 'Typed' | 'KeyedIn' | 'EmbeddedScanner' | 'Camera';
    /** The employee who scanned */
    userId: number;
    /** The sorter's color the slot lights in */
    color: 'Red' | 'Blue' | 'Yellow' | 'Green' | 'Magenta' | 'Cyan';
    /** The color as #RRGGBB */
    colorHex: string;
    /** The order line's quantity of this SKU */
    requiredUnits: number;
    /** Units of this SKU the order still needs after this scan (required - confirmed - pending) */
    remainingUnits: number;
    /** ISO 8601 UTC */
    createdAt: string;
    /** null unless Confirmed */
    confirmedAt: string | null;
    /** null unless Cancelled */
    cancelledAt: string | null;
    /** The product required a serial number per unit when it was scanned: the confirm must carry the unit's serial */
    requiresSerial: boolean;
    /** The serial number confirmed with the unit; null until confirmed, and for products without serials */
    serial: string | null;
    /** The sorter's name (first and last), as the hub shows it */
    userName: string;
  }[];
  /** GET /api/v1/walls/{id}/progress: Get what is left of a wall's work and how long its Complete slots have waited */
  GetWallProgress: {
    /** Units the orders now in the wall's slots still need: ordered minus confirmed (scans waiting for confirmation count as left) */
    unitsLeft: number;
    /** Slots holding an order (Sorting or Complete) */
    ordersInSlots: number;
    /** The Complete slots waiting for the shipper, by position */
    completeSlots: {
      crc: string;
      position: number;
      orderId: number;
      /** When the slot became Complete (its last confirm), ISO 8601 UTC */
      since: string;
    }[];
    /** The earliest `since` of the Complete slots: how long the shipper has kept a slot waiting; null when none is Complete */
    oldestCompleteSince: string | null;
  };
  /** PATCH /api/v1/walls/{id}: Change a wall */
  UpdateWall: {
    id: number;
    name: string;
    isActive: boolean;
    maxSorters: number;
    warehouseId: number | null;
    workflow: 'FreeSort' | 'PicklistSort';
    flowDirection: 'LeftToRight' | 'RightToLeft' | 'TopToBottom' | 'BottomToTop';
    segmentRows: number | null;
    segmentColumns: number | null;
    createdAt: string;
    /** Slots (sort boxes) attached to the wall. */
    slotCount: number;
    /** Sessions of the wall in status Connected. */
    connectedSorters: number;
    /** The wall's label printer (GET /printers); null: none, the shipper prints PDFs */
    printerId: number | null;
    /** Whether the wall prints an order's license plate on its printer by itself when the order becomes complete */
    autoPrint: boolean;
  };
  /** PUT /api/v1/walls/{id}: Change a wall (the same edit as PATCH /walls/{id}) */
  UpdateWallByPut: {
    id: number;
    name: string;
    isActive: boolean;
    maxSorters: number;
    warehouseId: number | null;
    workflow: 'FreeSort' | 'PicklistSort';
    flowDirection: 'LeftToRight' | 'RightToLeft' | 'TopToBottom' | 'BottomToTop';
    segmentRows: number | null;
    segmentColumns: number | null;
    createdAt: string;
    /** Slots (sort boxes) attached to the wall. */
    slotCount: number;
    /** Sessions of the wall in status Connected. */
    connectedSorters: number;
    /** The wall's label printer (GET /printers); null: none, the shipper prints PDFs */
    printerId: number | null;
    /** Whether the wall prints an order's license plate on its printer by itself when the order becomes complete */
    autoPrint: boolean;
  };
  /** GET /api/v1/walls/{id}/lights: Read a wall's light mode and the controllers of its slots, online or offline */
  GetWallLights: {
    wallId: number;
    /** normal, or the light test or the show-address mode in force */
    mode: 'normal' | 'test' | 'show-address';
    modeStartedAt: string | null;
    /** When the light test or show-address mode ends by itself; null in normal mode */
    modeUntil: string | null;
    /** Every controller known to drive a slot of this wall, online or not */
    controllers: {
      /** The controller's id, as it names itself (MQTT) or as LIGHTS_TCP_CONTROLLERS names it */
      id: string;
      driver: 'mqtt' | 'tcp';
      online: boolean;
      /** host:port of a TCP controller */
      address: string | null;
      lastSeenAt: string | null;
      /** When it last went online or offline */
      changedAt: string;
      /** The slots of this wall it drives, by position */
      slots: {
        serialNumber: string;
        crc: string;
        position: number;
      }[];
    }[];
    /** Slots of the wall no controller has announced: no light shows them */
    slotsWithoutController: {
      serialNumber: string;
      crc: string;
      position: number;
    }[];
  };
  /** POST /api/v1/walls/{id}/lights/test: Start a light test on a wall: every light steps through red, green, blue and white */
  StartWallLightTest: {
    wallId: number;
    /** normal, or the light test or the show-address mode in force */
    mode: 'normal' | 'test' | 'show-address';
    modeStartedAt: string | null;
    /** When the light test or show-address mode ends by itself; null in normal mode */
    modeUntil: string | null;
    /** Every controller known to drive a slot of this wall, online or not */
    controllers: {
      /** The controller's id, as it names itself (MQTT) or as LIGHTS_TCP_CONTROLLERS names it */
      id: string;
      driver: 'mqtt' | 'tcp';
      online: boolean;
      /** host:port of a TCP controller */
      address: string | null;
      lastSeenAt: string | null;
      /** When it last went online or offline */
      changedAt: string;
      /** The slots of this wall it drives, by position */
      slots: {
        serialNumber: string;
        crc: string;
        position: number;
      }[];
    }[];
    /** Slots of the wall no controller has announced: no light shows them */
    slotsWithoutController: {
      serialNumber: string;
      crc: string;
      position: number;
    }[];
  };
  /** POST /api/v1/walls/{id}/lights/show-address: Show each slot its position on its digits (white), to check the controller mapping */
  StartWallShowAddress: {
    wallId: number;
    /** normal, or the light test or the show-address mode in force */
    mode: 'normal' | 'test' | 'show-address';
    modeStartedAt: string | null;
    /** When the light test or show-address mode ends by itself; null in normal mode */
    modeUntil: string | null;
    /** Every controller known to drive a slot of this wall, online or not */
    controllers: {
      /** The controller's id, as it names itself (MQTT) or as LIGHTS_TCP_CONTROLLERS names it */
      id: string;
      driver: 'mqtt' | 'tcp';
      online: boolean;
      /** host:port of a TCP controller */
      address: string | null;
      lastSeenAt: string | null;
      /** When it last went online or offline */
      changedAt: string;
      /** The slots of this wall it drives, by position */
      slots: {
        serialNumber: string;
        crc: string;
        position: number;
      }[];
    }[];
    /** Slots of the wall no controller has announced: no light shows them */
    slotsWithoutController: {
      serialNumber: string;
      crc: string;
      position: number;
    }[];
  };
  /** DELETE /api/v1/walls/{id}/lights/mode: End a light test or show-address mode now */
  EndWallLightMode: {
    wallId: number;
    /** normal, or the light test or the show-address mode in force */
    mode: 'normal' | 'test' | 'show-address';
    modeStartedAt: string | null;
    /** When the light test or show-address mode ends by itself; null in normal mode */
    modeUntil: string | null;
    /** Every controller known to drive a slot of this wall, online or not */
    controllers: {
      /** The controller's id, as it names itself (MQTT) or as LIGHTS_TCP_CONTROLLERS names it */
      id: string;
      driver: 'mqtt' | 'tcp';
      online: boolean;
      /** host:port of a TCP controller */
      address: string | null;
      lastSeenAt: string | null;
      /** When it last went online or offline */
      changedAt: string;
      /** The slots of this wall it drives, by position */
      slots: {
        serialNumber: string;
        crc: string;
        position: number;
      }[];
    }[];
    /** Slots of the wall no controller has announced: no light shows them */
    slotsWithoutController: {
      serialNumber: string;
      crc: string;
      position: number;
    }[];
  };
  /** PUT /api/v1/walls/{id}/sort-boxes: Attach slots (sort boxes) to a wall, idempotently and all-or-nothing */
  AttachSortBoxes: {
    id: number;
    wallId: number;
    /** Hardware serial number of the light device */
    serialNumber: string;
    /** CRC-32 of the serial number, 8 upper-case hex digits: the barcode on the device */
    crc: string;
    /** A-<crc>, on the front: confirms scans */
    sorterBarcode: string;
    /** B-<crc>, on the back: releases a Complete slot */
    shipperBarcode: string;
    /** 1-based position on the wall */
    position: number;
    status: 'Empty' | 'Sorting' | 'Complete';
    /** The order the slot holds; null when Empty */
    orderId: number | null;
  }[];
  /** DELETE /api/v1/walls/{id}/sort-boxes/{crc}: Detach an Empty slot from a wall */
  DetachSortBox: {
    id: number;
    wallId: number;
    /** Hardware serial number of the light device */
    serialNumber: string;
    /** CRC-32 of the serial number, 8 upper-case hex digits: the barcode on the device */
    crc: string;
    /** A-<crc>, on the front: confirms scans */
    sorterBarcode: string;
    /** B-<crc>, on the back: releases a Complete slot */
    shipperBarcode: string;
    /** 1-based position on the wall */
    position: number;
    status: 'Empty' | 'Sorting' | 'Complete';
    /** The order the slot holds; null when Empty */
    orderId: number | null;
  };
  /** POST /api/v1/sort-boxes/{barcode}/release: The shipper's scan: empty a Complete slot so it can take the next order */
  ReleaseSortBox: {
    id: number;
    wallId: number;
    /** Hardware serial number of the light device */
    serialNumber: string;
    /** CRC-32 of the serial number, 8 upper-case hex digits: the barcode on the device */
    crc: string;
    /** A-<crc>, on the front: confirms scans */
    sorterBarcode: string;
    /** B-<crc>, on the back: releases a Complete slot */
    shipperBarcode: string;
    /** 1-based position on the wall */
    position: number;
    status: 'Empty' | 'Sorting' | 'Complete';
    /** The order the slot holds; null when Empty */
    orderId: number | null;
    /** The order the slot held; null when it held none */
    releasedOrderId: number | null;
    /** Pending items a forced release cancelled; empty otherwise */
    cancelledItems: {
      id: number;
      wallId: number;
      /** The slot the unit goes into */
      crc: string;
      /** A-<crc>: scanning it confirms the item */
      sorterBarcode: string;
      /** The slot position on the wall (1-based); 0 when the slot was detached since */
      position: number;
      status: 'PendingConfirmation' | 'Confirmed' | 'Cancelled';
      /** Units the scan reserved (1) */
      units: number;
      /** Units confirmed; 0 until confirmed */
      confirmedUnits: number;
      /** The order the unit was assigned to */
      orderId: number;
      /** The product the barcode resolved to */
      sku: string;
      /** The barcode as scanned */
      barcode: string;
      barcodeInputMethod: 'Scanned' | 'Typed' | 'KeyedIn' | 'EmbeddedScanner' | 'Camera';
      /** The employee who scanned */
      userId: number;
      /** The sorter's color the slot lights in */
      color: 'Red' | 'Blue' | 'Yellow' | 'Green' | 'Magenta' | 'Cyan';
      /** The color as #RRGGBB */
      colorHex: string;
      /** The order line's quantity of this SKU */
      requiredUnits: number;
      /** Units of this SKU the order still needs after this scan (required - confirmed - pending) */
      remainingUnits: number;
      /** ISO 8601 UTC */
      createdAt: string;
      /** null unless Confirmed */
      confirmedAt: string | null;
      /** null unless Cancelled */
      cancelledAt: string | null;
      /** The product required a serial number per unit when it was scanned: the confirm must carry the unit's serial */
      requiresSerial: boolean;
      /** The serial number confirmed with the unit; null until confirmed, and for products without serials */
      serial: string | null;
    }[];
  };
  /** GET /api/v1/list-sortbox-displays: Where each slot sits on the picture of a wall */
  ListSortBoxDisplays: {
    /** 1-based slot position. */
    index: number;
    /** 1-based segment number. */
    segment: number;
    /** 1-based row within the segment. */
    row: number;
    /** 1-based column within the segment. */
    column: number;
    /** 0-based column over the whole wall. */
    x: number;
    /** 0-based row over the whole wall. */
    y: number;
  }[];
  /** GET /api/v1/orders/unshipped: List unshipped orders with their lines and where they are being sorted */
  ListUnshippedOrders: {
    id: number;
    warehouseId: number;
    /** ISO 8601 UTC */
    orderDate: string;
    priority: 'Low' | 'Normal' | 'High' | 'Critical';
    isDropShip: boolean;
    status: 'Unshipped' | 'Shipped';
    shipTo: {
      name: string;
      street1: string;
      street2?: string | null;
      city: string;
      state?: string | null;
      postalCode: string;
      country: string;
    };
    /** The wall whose slot holds the order now; null when in no slot. */
    wallId: number | null;
    /** The crc of the slot holding the order now; null when in no slot. */
    crc: string | null;
    /** Sorted: every unit confirmed. InProgress: some unit confirmed or pending, or the order holds a slot. NotStarted: otherwise. */
    sortStatus: 'NotStarted' | 'InProgress' | 'Sorted';
    items: {
      sku: string;
      qty: number;
      /** Units confirmed into the slot. */
      sortedQty: number;
      /** Present only with bins=true. */
      bins?: string[];
    }[];
  }[];
  /** GET /api/v1/orders/unshipped/ids: List the ids of unshipped orders */
  ListUnshippedOrderIds: number[];
  /** GET /api/v1/orders/unshipped/products: Per product: units still to sort over the unshipped orders, and how many orders need it */
  ListUnshippedOrdersProductsSummary: {
    sku: string;
    /** null when the sku is not in the client's catalog */
    title: string | null;
    /** Sum of qty - confirmed over the matching orders. */
    unitsToSort: number;
    /** Matching orders that still need units of this sku. */
    orders: number;
    /** With bins=true: distinct bins of the lines that still need units. */
    bins?: string[];
  }[];
  /** GET /api/v1/orders/{id}: Read one order: its lines with units sorted and pending, and the slot it is in */
  GetOrder: {
    id: number;
    warehouseId: number;
    /** ISO 8601 UTC */
    orderDate: string;
    priority: 'Low' | 'Normal' | 'High' | 'Critical';
    isDropShip: boolean;
    status: 'Unshipped' | 'Shipped';
    shipTo: {
      name: string;
      street1: string;
      street2?: string | null;
      city: string;
      state?: string | null;
      postalCode: string;
      country: string;
    };
    /** The wall whose slot holds the order now; null when in no slot. */
    wallId: number | null;
    /** The crc of the slot holding the order now; null when in no slot. */
    crc: string | null;
    /** Sorted: every unit confirmed. InProgress: some unit confirmed or pending, or the order holds a slot. NotStarted: otherwise. */
    sortStatus: 'NotStarted' | 'InProgress' | 'Sorted';
    items: {
      sku: string;
      qty: number;
      /** Units confirmed into the slot. */
      sortedQty: number;
      /** Present only with bins=true. */
      bins?: string[];
      /** Units scanned into the slot and waiting for their confirmation (A- scan). */
      pendingQty: number;
      /** The serial numbers its units were confirmed with, in the order confirmed; empty for a product without serials. */
      serials: string[];
    }[];
  };
  /** POST /api/v1/walls/{id}/sessions: Connect to a wall as a sorter: returns the session token and the sorter's color */
  StartSorterSession: {
    /** The session id: what events and audit logs name the session by. */
    id: number;
    /** The credential that scans as this sorter: shown only to its owner and to Managers and Admins, never in events. */
    token: string;
    wallId: number;
    /** The employee connected */
    userId: number;
    /** The Open picklist the session sorts; null: any order of the wall */
    picklistId: number | null;
    /** The sorter's color on this wall: the first of the palette no other connected session holds */
    color: 'Red' | 'Blue' | 'Yellow' | 'Green' | 'Magenta' | 'Cyan';
    /** The color as #RRGGBB */
    colorHex: string;
    status: 'Connected' | 'Ended';
    /** ISO 8601 UTC */
    startedAt: string;
    /** The last connect, renew, scan, confirm, cancel or swap */
    lastActivityAt: string;
    /** When the session ends without further activity (Expired) */
    expiresAt: string;
    /** null while Connected */
    endedAt: string | null;
    /** Stopped, Replaced, Expired or Disconnected; null while Connected */
    endReason: 'Stopped' | 'Replaced' | 'Expired' | 'Disconnected' | null;
  };
  /** PUT /api/v1/walls/{id}/sessions/{token}: Renew a session: its expiry moves to now + the idle timeout (8 hours) */
  RenewSorterSession: {
    /** The session id: what events and audit logs name the session by. */
    id: number;
    /** The credential that scans as this sorter: shown only to its owner and to Managers and Admins, never in events. */
    token: string;
    wallId: number;
    /** The employee connected */
    userId: number;
    /** The Open picklist the session sorts; null: any order of the wall */
    picklistId: number | null;
    /** The sorter's color on this wall: the first of the palette no other connected session holds */
    color: 'Red' | 'Blue' | 'Yellow' | 'Green' | 'Magenta' | 'Cyan';
    /** The color as #RRGGBB */
    colorHex: string;
    status: 'Connected' | 'Ended';
    /** ISO 8601 UTC */
    startedAt: string;
    /** The last connect, renew, scan, confirm, cancel or swap */
    lastActivityAt: string;
    /** When the session ends without further activity (Expired) */
    expiresAt: string;
    /** null while Connected */
    endedAt: string | null;
    /** Stopped, Replaced, Expired or Disconnected; null while Connected */
    endReason: 'Stopped' | 'Replaced' | 'Expired' | 'Disconnected' | null;
  };
  /** DELETE /api/v1/walls/{id}/sessions/{token}: Stop a session (the sorter's own), or disconnect another sorter's (Manager, Admin) */
  StopSorterSession: {
    /** The session id: what events and audit logs name the session by. */
    id: number;
    /** The credential that scans as this sorter: shown only to its owner and to Managers and Admins, never in events. */
    token: string;
    wallId: number;
    /** The employee connected */
    userId: number;
    /** The Open picklist the session sorts; null: any order of the wall */
    picklistId: number | null;
    /** The sorter's color on this wall: the first of the palette no other connected session holds */
    color: 'Red' | 'Blue' | 'Yellow' | 'Green' | 'Magenta' | 'Cyan';
    /** The color as #RRGGBB */
    colorHex: string;
    status: 'Connected' | 'Ended';
    /** ISO 8601 UTC */
    startedAt: string;
    /** The last connect, renew, scan, confirm, cancel or swap */
    lastActivityAt: string;
    /** When the session ends without further activity (Expired) */
    expiresAt: string;
    /** null while Connected */
    endedAt: string | null;
    /** Stopped, Replaced, Expired or Disconnected; null while Connected */
    endReason: 'Stopped' | 'Replaced' | 'Expired' | 'Disconnected' | null;
  };
  /** GET /api/v1/walls/{id}/sessions: List the connected sessions of a wall */
  ListSorterSessions: {
    /** The session id: what events and audit logs name the session by. */
    id: number;
    /** The credential that scans as this sorter: shown only to its owner and to Managers and Admins, never in events. */
    token: string;
    wallId: number;
    /** The employee connected */
    userId: number;
    /** The Open picklist the session sorts; null: any order of the wall */
    picklistId: number | null;
    /** The sorter's color on this wall: the first of the palette no other connected session holds */
    color: 'Red' | 'Blue' | 'Yellow' | 'Green' | 'Magenta' | 'Cyan';
    /** The color as #RRGGBB */
    colorHex: string;
    status: 'Connected' | 'Ended';
    /** ISO 8601 UTC */
    startedAt: string;
    /** The last connect, renew, scan, confirm, cancel or swap */
    lastActivityAt: string;
    /** When the session ends without further activity (Expired) */
    expiresAt: string;
    /** null while Connected */
    endedAt: string | null;
    /** Stopped, Replaced, Expired or Disconnected; null while Connected */
    endReason: 'Stopped' | 'Replaced' | 'Expired' | 'Disconnected' | null;
  }[];
  /** POST /api/v1/sort-box-items: Scan a product: the service chooses the order and the slot and lights it in your color */
  CreateSortBoxItem: {
    id: number;
    wallId: number;
    /** The slot the unit goes into */
    crc: string;
    /** A-<crc>: scanning it confirms the item */
    sorterBarcode: string;
    /** The slot position on the wall (1-based); 0 when the slot was detached since */
    position: number;
    status: 'PendingConfirmation' | 'Confirmed' | 'Cancelled';
    /** Units the scan reserved (1) */
    units: number;
    /** Units confirmed; 0 until confirmed */
    confirmedUnits: number;
    /** The order the unit was assigned to */
    orderId: number;
    /** The product the barcode resolved to */
    sku: string;
    /** The barcode as scanned */
    barcode: string;
    barcodeInputMethod: 'Scanned' | 'Typed' | 'KeyedIn' | 'EmbeddedScanner' | 'Camera';
    /** The employee who scanned */
    userId: number;
    /** The sorter's color the slot lights in */
    color: 'Red' | 'Blue' | 'Yellow' | 'Green' | 'Magenta' | 'Cyan';
    /** The color as #RRGGBB */
    colorHex: string;
    /** The order line's quantity of this SKU */
    requiredUnits: number;
    /** Units of this SKU the order still needs after this scan (required - confirmed - pending) */
    remainingUnits: number;
    /** ISO 8601 UTC */
    createdAt: string;
    /** null unless Confirmed */
    confirmedAt: string | null;
    /** null unless Cancelled */
    cancelledAt: string | null;
    /** The product required a serial number per unit when it was scanned: the confirm must carry the unit's serial */
    requiresSerial: boolean;
    /** The serial number confirmed with the unit; null until confirmed, and for products without serials */
    serial: string | null;
  };
  /** GET /api/v1/sort-box-items/{id}: Read a sort box item (a scan) with its slot and the order line figures */
  GetSortBoxItem: {
    id: number;
    wallId: number;
    /** The slot the unit goes into */
    crc: string;
    /** A-<crc>: scanning it confirms the item */
    sorterBarcode: string;
    /** The slot position on the wall (1-based); 0 when the slot was detached since */
    position: number;
    status: 'PendingConfirmation' | 'Confirmed' | 'Cancelled';
    /** Units the scan reserved (1) */
    units: number;
    /** Units confirmed; 0 until confirmed */
    confirmedUnits: number;
    /** The order the unit was assigned to */
    orderId: number;
    /** The product the barcode resolved to */
    sku: string;
    /** The barcode as scanned */
    barcode: string;
    barcodeInputMethod: 'Scanned' | 'Typed' | 'KeyedIn' | 'EmbeddedScanner' | 'Camera';
    /** The employee who scanned */
    userId: number;
    /** The sorter's color the slot lights in */
    color: 'Red' | 'Blue' | 'Yellow' | 'Green' | 'Magenta' | 'Cyan';
    /** The color as #RRGGBB */
    colorHex: string;
    /** The order line's quantity of this SKU */
    requiredUnits: number;
    /** Units of this SKU the order still needs after this scan (required - confirmed - pending) */
    remainingUnits: number;
    /** ISO 8601 UTC */
    createdAt: string;
    /** null unless Confirmed */
    confirmedAt: string | null;
    /** null unless Cancelled */
    cancelledAt: string | null;
    /** The product required a serial number per unit when it was scanned: the confirm must carry the unit's serial */
    requiresSerial: boolean;
    /** The serial number confirmed with the unit; null until confirmed, and for products without serials */
    serial: string | null;
  };
  /** PATCH /api/v1/sort-box-items/{id}/confirm: Confirm a scan: the unit(s) are in the slot */
  ConfirmSortBoxItem: {
    id: number;
    wallId: number;
    /** The slot the unit goes into */
    crc: string;
    /** A-<crc>: scanning it confirms the item */
    sorterBarcode: string;
    /** The slot position on the wall (1-based); 0 when the slot was detached since */
    position: number;
    status: 'PendingConfirmation' | 'Confirmed' | 'Cancelled';
    /** Units the scan reserved (1) */
    units: number;
    /** Units confirmed; 0 until confirmed */
    confirmedUnits: number;
    /** The order the unit was assigned to */
    orderId: number;
    /** The product the barcode resolved to */
    sku: string;
    /** The barcode as scanned */
    barcode: string;
    barcodeInputMethod: 'Scanned' | 'Typed' | 'KeyedIn' | 'EmbeddedScanner' | 'Camera';
    /** The employee who scanned */
    userId: number;
    /** The sorter's color the slot lights in */
    color: 'Red' | 'Blue' | 'Yellow' | 'Green' | 'Magenta' | 'Cyan';
    /** The color as #RRGGBB */
    colorHex: string;
    /** The order line's quantity of this SKU */
    requiredUnits: number;
    /** Units of this SKU the order still needs after this scan (required - confirmed - pending) */
    remainingUnits: number;
    /** ISO 8601 UTC */
    createdAt: string;
    /** null unless Confirmed */
    confirmedAt: string | null;
    /** null unless Cancelled */
    cancelledAt: string | null;
    /** The product required a serial number per unit when it was scanned: the confirm must carry the unit's serial */
    requiresSerial: boolean;
    /** The serial number confirmed with the unit; null until confirmed, and for products without serials */
    serial: string | null;
  };
  /** PATCH /api/v1/sort-box-items/{id}/cancel: Cancel a pending scan; its unit goes back to the order */
  CancelSortBoxItem: {
    id: number;
    wallId: number;
    /** The slot the unit goes into */
    crc: string;
    /** A-<crc>: scanning it confirms the item */
    sorterBarcode: string;
    /** The slot position on the wall (1-based); 0 when the slot was detached since */
    position: number;
    status: 'PendingConfirmation' | 'Confirmed' | 'Cancelled';
    /** Units the scan reserved (1) */
    units: number;
    /** Units confirmed; 0 until confirmed */
    confirmedUnits: number;
    /** The order the unit was assigned to */
    orderId: number;
    /** The product the barcode resolved to */
    sku: string;
    /** The barcode as scanned */
    barcode: string;
    barcodeInputMethod: 'Scanned' | 'Typed' | 'KeyedIn' | 'EmbeddedScanner' | 'Camera';
    /** The employee who scanned */
    userId: number;
    /** The sorter's color the slot lights in */
    color: 'Red' | 'Blue' | 'Yellow' | 'Green' | 'Magenta' | 'Cyan';
    /** The color as #RRGGBB */
    colorHex: string;
    /** The order line's quantity of this SKU */
    requiredUnits: number;
    /** Units of this SKU the order still needs after this scan (required - confirmed - pending) */
    remainingUnits: number;
    /** ISO 8601 UTC */
    createdAt: string;
    /** null unless Confirmed */
    confirmedAt: string | null;
    /** null unless Cancelled */
    cancelledAt: string | null;
    /** The product required a serial number per unit when it was scanned: the confirm must carry the unit's serial */
    requiresSerial: boolean;
    /** The serial number confirmed with the unit; null until confirmed, and for products without serials */
    serial: string | null;
  };
  /** PATCH /api/v1/sort-box-items/{id}/swap: Move a pending scan's order to another, empty slot of the same wall */
  SwapSortBoxItemSlot: {
    id: number;
    wallId: number;
    /** The slot the unit goes into */
    crc: string;
    /** A-<crc>: scanning it confirms the item */
    sorterBarcode: string;
    /** The slot position on the wall (1-based); 0 when the slot was detached since */
    position: number;
    status: 'PendingConfirmation' | 'Confirmed' | 'Cancelled';
    /** Units the scan reserved (1) */
    units: number;
    /** Units confirmed; 0 until confirmed */
    confirmedUnits: number;
    /** The order the unit was assigned to */
    orderId: number;
    /** The product the barcode resolved to */
    sku: string;
    /** The barcode as scanned */
    barcode: string;
    barcodeInputMethod: 'Scanned' | 'Typed' | 'KeyedIn' | 'EmbeddedScanner' | 'Camera';
    /** The employee who scanned */
    userId: number;
    /** The sorter's color the slot lights in */
    color: 'Red' | 'Blue' | 'Yellow' | 'Green' | 'Magenta' | 'Cyan';
    /** The color as #RRGGBB */
    colorHex: string;
    /** The order line's quantity of this SKU */
    requiredUnits: number;
    /** Units of this SKU the order still needs after this scan (required - confirmed - pending) */
    remainingUnits: number;
    /** ISO 8601 UTC */
    createdAt: string;
    /** null unless Confirmed */
    confirmedAt: string | null;
    /** null unless Cancelled */
    cancelledAt: string | null;
    /** The product required a serial number per unit when it was scanned: the confirm must carry the unit's serial */
    requiresSerial: boolean;
    /** The serial number confirmed with the unit; null until confirmed, and for products without serials */
    serial: string | null;
  };
  /** GET /api/v1/events/recent: List a wall's last events: what a hub's feed shows on open */
  ListRecentWallEvents: {
    /** The event id (a UUID): the lastEventId to follow the stream from */
    id: string;
    /** The event type, e.g. 'sort-box-item.created' */
    type: string;
    /** ISO 8601 UTC */
    occurredAt: string;
    clientId: number;
    wallId: number | null;
    /** The type's data, as the stream and the webhooks carry it */
    data: {
      [key: string]: unknown;
    };
  }[];
  /** POST /api/v1/admin/webhooks: Subscribe a URL to events (Standard Webhooks) */
  CreateWebhook: {
    id: number;
    url: string;
    /** Event types (docs/api.md §8), or ['*'] for every type */
    events: string[];
    /** whsec_<base64>: the key receivers verify webhook-signature with (Standard Webhooks) */
    secret: string;
    isActive: boolean;
    /** ISO 8601 UTC */
    createdAt: string;
  };
  /** GET /api/v1/admin/webhooks: Your company's webhook subscriptions, with their secrets */
  ListWebhooks: {
    id: number;
    url: string;
    /** Event types (docs/api.md §8), or ['*'] for every type */
    events: string[];
    /** whsec_<base64>: the key receivers verify webhook-signature with (Standard Webhooks) */
    secret: string;
    isActive: boolean;
    /** ISO 8601 UTC */
    createdAt: string;
  }[];
  /** GET /api/v1/admin/webhooks/{id}/deliveries: A subscription's delivery attempts, newest first */
  ListWebhookDeliveries: {
    id: number;
    subscriptionId: number;
    /** Also the webhook-id header: receivers deduplicate on it */
    eventId: string;
    eventType: string;
    /** 1 for the first attempt */
    attempt: number;
    /** pending while the request is under way */
    status: 'succeeded' | 'failed' | 'pending';
    responseStatus: number | null;
    error: string | null;
    durationMs: number | null;
    attemptedAt: string;
    /** When the next attempt is due after a failure; null when none follows */
    nextAttemptAt: string | null;
  }[];
  /** GET /api/v1/marketplace-transparency-code: Your company's transparency codes, filtered */
  ListMarketplaceTransparencyCodes: {
    id: number;
    orderId: number;
    /** The product's SKU */
    productId: string;
    /** SKU of the kit in the order this unit ships in; null for a unit ordered on its own */
    kitParentProductId: string | null;
    code: string;
    /** ISO 8601 UTC */
    createdAt: string;
    /** Employee id of whoever recorded it; null once that employee is deleted */
    createdBy: number | null;
  }[];
  /** POST /api/v1/marketplace-transparency-code: Record a transparency code for one unit of a product in an order */
  InsertMarketplaceTransparencyCode: {
    id: number;
    orderId: number;
    /** The product's SKU */
    productId: string;
    /** SKU of the kit in the order this unit ships in; null for a unit ordered on its own */
    kitParentProductId: string | null;
    code: string;
    /** ISO 8601 UTC */
    createdAt: string;
    /** Employee id of whoever recorded it; null once that employee is deleted */
    createdBy: number | null;
  };
  /** GET /api/v1/marketplace-transparency-code/orders/{orderId}: The transparency codes of an order, oldest first */
  ListMarketplaceTransparencyCodesForOrder: {
    id: number;
    orderId: number;
    /** The product's SKU */
    productId: string;
    /** SKU of the kit in the order this unit ships in; null for a unit ordered on its own */
    kitParentProductId: string | null;
    code: string;
    /** ISO 8601 UTC */
    createdAt: string;
    /** Employee id of whoever recorded it; null once that employee is deleted */
    createdBy: number | null;
  }[];
  /** GET /api/v1/marketplace-transparency-code/orders/{orderId}/products/required/{sku}: Whether a product of an order needs transparency codes */
  OrderProductRequiresMarketplaceTransparencyCode: boolean;
  /** GET /api/v1/marketplace-transparency-code/orders/{orderId}/products/required: The products of an order that need transparency codes, with the codes recorded and the count left, keyed by SKU */
  ListProductsThatRequireMarketplaceTransparencyCodesForOrder: {
    [key: string]: {
      /** The product's SKU */
      productId: string;
      /** Units of the product in the order: its own line plus each kit line times the kit component quantity */
      requiredQuantity: number;
      /** Codes recorded so far, oldest first */
      codes: string[];
      /** requiredQuantity minus the codes recorded, never below 0 */
      remainingQuantity: number;
    };
  };
  /** GET /api/v1/geo/by-ip: Where an IP address is (GeoLite data shipped with the service) */
  GetLocationByIp: {
    /** The address looked up (IPv4-mapped IPv6 shown as IPv4); null for a wall */
    ip: string | null;
    /** ISO 3166-1 alpha-2; null when unknown */
    country: string | null;
    region: string | null;
    city: string | null;
    latitude: number | null;
    longitude: number | null;
    /** IANA time zone, e.g. Europe/London */
    timezone: string | null;
    source: 'ip' | 'wall';
  };
  /** GET /api/v1/geo/by-ip/implicit: Where the caller's own address is */
  GetLocationByImplicitIp: {
    /** The address looked up (IPv4-mapped IPv6 shown as IPv4); null for a wall */
    ip: string | null;
    /** ISO 3166-1 alpha-2; null when unknown */
    country: string | null;
    region: string | null;
    city: string | null;
    latitude: number | null;
    longitude: number | null;
    /** IANA time zone, e.g. Europe/London */
    timezone: string | null;
    source: 'ip' | 'wall';
  };
  /** GET /api/v1/geo/by-wall-id: Where a wall is: its warehouse's coordinates */
  GetLocationByWallId: {
    /** The address looked up (IPv4-mapped IPv6 shown as IPv4); null for a wall */
    ip: string | null;
    /** ISO 3166-1 alpha-2; null when unknown */
    country: string | null;
    region: string | null;
    city: string | null;
    latitude: number | null;
    longitude: number | null;
    /** IANA time zone, e.g. Europe/London */
    timezone: string | null;
    source: 'ip' | 'wall';
  };
  /** GET /api/v1/auto-login/{team}/inventory-web-portal: A link that signs you in to the inventory web portal */
  ConstructInventoryWebPortalAutoLoginLink: string;
  /** GET /api/v1/auto-login/{team}/sorting-hub: A link that signs you in to the sorting hub */
  ConstructSortingHubAutoLoginLink: string;
  /** GET /api/v1/auto-login/{team}/sorting-sorter: A link that signs you in to the sorter app */
  ConstructSortingSorterAutoLoginLink: string;
  /** GET /api/v1/auto-login/{team}/inventory-lens: A link that signs you in to the inventory lens app */
  ConstructInventoryLensAutoLoginLink: string;
  /** POST /api/v1/auto-login/redeem: Sign in with the token of an auto-login link (once, within 60 s) */
  RedeemAutoLoginToken: {
    access_token: string;
    token_type: 'Bearer';
    expires_in: number;
  };
  /** POST /api/v1/printers: Register a network label printer */
  CreatePrinter: {
    id: number;
    name: string;
    /** Host name or IP address of the printer on the floor network */
    host: string;
    /** Raw TCP port it takes ZPL on (9100 on Zebra-compatible printers) */
    port: number;
    /** When it last took a label in full (ISO 8601 UTC); null: never */
    lastPrintedAt: string | null;
    /** Why the last attempt to reach it failed; null when the last attempt succeeded (or there was none) */
    lastError: string | null;
  };
  /** GET /api/v1/printers: List your company's printers with their health */
  ListPrinters: {
    id: number;
    name: string;
    /** Host name or IP address of the printer on the floor network */
    host: string;
    /** Raw TCP port it takes ZPL on (9100 on Zebra-compatible printers) */
    port: number;
    /** When it last took a label in full (ISO 8601 UTC); null: never */
    lastPrintedAt: string | null;
    /** Why the last attempt to reach it failed; null when the last attempt succeeded (or there was none) */
    lastError: string | null;
  }[];
  /** GET /api/v1/printers/{id}: Get a printer with its health */
  GetPrinter: {
    id: number;
    name: string;
    /** Host name or IP address of the printer on the floor network */
    host: string;
    /** Raw TCP port it takes ZPL on (9100 on Zebra-compatible printers) */
    port: number;
    /** When it last took a label in full (ISO 8601 UTC); null: never */
    lastPrintedAt: string | null;
    /** Why the last attempt to reach it failed; null when the last attempt succeeded (or there was none) */
    lastError: string | null;
  };
  /** GET /api/v1/printers/{id}/jobs: List a printer's latest print jobs */
  ListPrinterJobs: {
    id: number;
    printerId: number;
    /** The order whose license plate it prints; null for a test print (POST /printers/{id}/test) */
    orderId: number | null;
    /** Queued: waiting for the printer (retried while it does not answer); Sent: the printer took every byte; Failed: given up (see lastError) */
    status: 'Queued' | 'Sent' | 'Failed';
    /** Attempts to reach the printer so far */
    attempts: number;
    /** Why the last attempt failed; null when none failed */
    lastError: string | null;
    createdAt: string;
    /** When the printer took the label; null unless Sent */
    sentAt: string | null;
  }[];
  /** POST /api/v1/printers/{id}/test: Print a test label on a printer */
  PrintTestLabel: {
    id: number;
    printerId: number;
    /** The order whose license plate it prints; null for a test print (POST /printers/{id}/test) */
    orderId: number | null;
    /** Queued: waiting for the printer (retried while it does not answer); Sent: the printer took every byte; Failed: given up (see lastError) */
    status: 'Queued' | 'Sent' | 'Failed';
    /** Attempts to reach the printer so far */
    attempts: number;
    /** Why the last attempt failed; null when none failed */
    lastError: string | null;
    createdAt: string;
    /** When the printer took the label; null unless Sent */
    sentAt: string | null;
  };
  /** POST /api/v1/license-plates/{crc}/print: Print the license plate of the order in a slot on its wall's printer */
  PrintLicensePlateForCrc: {
    id: number;
    printerId: number;
    /** The order whose license plate it prints; null for a test print (POST /printers/{id}/test) */
    orderId: number | null;
    /** Queued: waiting for the printer (retried while it does not answer); Sent: the printer took every byte; Failed: given up (see lastError) */
    status: 'Queued' | 'Sent' | 'Failed';
    /** Attempts to reach the printer so far */
    attempts: number;
    /** Why the last attempt failed; null when none failed */
    lastError: string | null;
    createdAt: string;
    /** When the printer took the label; null unless Sent */
    sentAt: string | null;
  };
  /** GET /api/v1/print-jobs/{id}: Get a print job and its state */
  GetPrintJob: {
    id: number;
    printerId: number;
    /** The order whose license plate it prints; null for a test print (POST /printers/{id}/test) */
    orderId: number | null;
    /** Queued: waiting for the printer (retried while it does not answer); Sent: the printer took every byte; Failed: given up (see lastError) */
    status: 'Queued' | 'Sent' | 'Failed';
    /** Attempts to reach the printer so far */
    attempts: number;
    /** Why the last attempt failed; null when none failed */
    lastError: string | null;
    createdAt: string;
    /** When the printer took the label; null unless Sent */
    sentAt: string | null;
  };
  /** GET /api/v1/walls/{id}/complete-slots: List a wall's Complete slots for the shipper */
  ListWallCompleteSlots: {
    /** The slot number on the wall */
    position: number;
    crc: string;
    /** B-<crc>: the barcode on the back the shipper scans */
    shipperBarcode: string;
    orderId: number;
    /** Units sorted into the slot for the order */
    units: number;
    /** When the order became complete (its last confirm), ISO 8601 UTC */
    completedAt: string | null;
    /** Seconds since then */
    waitingSeconds: number;
  }[];
  /** GET /api/v1/audit-logs: List audit records of every kind */
  ListAuditLogs: {
    id: number;
    /** ISO 8601 UTC */
    occurredAt: string;
    /** The event type (e.g. 'sort-box-item.created'), or 'command.refused' for a refused command (isError) */
    type: string;
    wallId: number | null;
    userId: number | null;
    orderId: number | null;
    picklistId: number | null;
    /** The slot's crc */
    crc: string | null;
    /** The scanned unit barcode */
    barcode: string | null;
    sortBoxItemId: number | null;
    sessionId: number | null;
    /** true: a refused command; data.code and data.detail say why */
    isError: boolean;
    message: string;
    /** The event's data; for a refused command { command, code, detail, ... } */
    data: {
      [key: string]: unknown;
    };
  }[];
  /** GET /api/v1/audit-logs/sort-boxes/{crc}: List the records of one order's stay in one slot */
  ListAuditLogsBySortBoxAndOrderSort: {
    id: number;
    /** ISO 8601 UTC */
    occurredAt: string;
    /** The event type (e.g. 'sort-box-item.created'), or 'command.refused' for a refused command (isError) */
    type: string;
    wallId: number | null;
    userId: number | null;
    orderId: number | null;
    picklistId: number | null;
    /** The slot's crc */
    crc: string | null;
    /** The scanned unit barcode */
    barcode: string | null;
    sortBoxItemId: number | null;
    sessionId: number | null;
    /** true: a refused command; data.code and data.detail say why */
    isError: boolean;
    message: string;
    /** The event's data; for a refused command { command, code, detail, ... } */
    data: {
      [key: string]: unknown;
    };
  }[];
  /** GET /api/v1/audit-logs/sort-boxes: List slot records (completed, released, license plates) */
  ListSortBoxAuditLogs: {
    id: number;
    /** ISO 8601 UTC */
    occurredAt: string;
    /** The event type (e.g. 'sort-box-item.created'), or 'command.refused' for a refused command (isError) */
    type: string;
    wallId: number | null;
    userId: number | null;
    orderId: number | null;
    picklistId: number | null;
    /** The slot's crc */
    crc: string | null;
    /** The scanned unit barcode */
    barcode: string | null;
    sortBoxItemId: number | null;
    sessionId: number | null;
    /** true: a refused command; data.code and data.detail say why */
    isError: boolean;
    message: string;
    /** The event's data; for a refused command { command, code, detail, ... } */
    data: {
      [key: string]: unknown;
    };
  }[];
  /** GET /api/v1/audit-logs/sort-box-items: List item records (scans, confirmations, cancellations, swaps, and refused ones) */
  ListSortBoxItemAuditLogs: {
    id: number;
    /** ISO 8601 UTC */
    occurredAt: string;
    /** The event type (e.g. 'sort-box-item.created'), or 'command.refused' for a refused command (isError) */
    type: string;
    wallId: number | null;
    userId: number | null;
    orderId: number | null;
    picklistId: number | null;
    /** The slot's crc */
    crc: string | null;
    /** The scanned unit barcode */
    barcode: string | null;
    sortBoxItemId: number | null;
    sessionId: number | null;
    /** true: a refused command; data.code and data.detail say why */
    isError: boolean;
    message: string;
    /** The event's data; for a refused command { command, code, detail, ... } */
    data: {
      [key: string]: unknown;
    };
  }[];
  /** GET /api/v1/audit-logs/sessions: List sorter session records (started, renewed, ended, and refused connects) */
  ListUserSessionsAuditLogs: {
    id: number;
    /** ISO 8601 UTC */
    occurredAt: string;
    /** The event type (e.g. 'sort-box-item.created'), or 'command.refused' for a refused command (isError) */
    type: string;
    wallId: number | null;
    userId: number | null;
    orderId: number | null;
    picklistId: number | null;
    /** The slot's crc */
    crc: string | null;
    /** The scanned unit barcode */
    barcode: string | null;
    sortBoxItemId: number | null;
    sessionId: number | null;
    /** true: a refused command; data.code and data.detail say why */
    isError: boolean;
    message: string;
    /** The event's data; for a refused command { command, code, detail, ... } */
    data: {
      [key: string]: unknown;
    };
  }[];
  /** GET /api/v1/audit-logs/walls: List wall records (changes to a wall and its slots) */
  ListWallAuditLogs: {
    id: number;
    /** ISO 8601 UTC */
    occurredAt: string;
    /** The event type (e.g. 'sort-box-item.created'), or 'command.refused' for a refused command (isError) */
    type: string;
    wallId: number | null;
    userId: number | null;
    orderId: number | null;
    picklistId: number | null;
    /** The slot's crc */
    crc: string | null;
    /** The scanned unit barcode */
    barcode: string | null;
    sortBoxItemId: number | null;
    sessionId: number | null;
    /** true: a refused command; data.code and data.detail say why */
    isError: boolean;
    message: string;
    /** The event's data; for a refused command { command, code, detail, ... } */
    data: {
      [key: string]: unknown;
    };
  }[];
  /** GET /api/v1/audit-logs/initial-timestamp: The time of the client's oldest audit record */
  GetInitialWallAuditLogTimestamp: string;
  /** GET /api/v1/insights/stats: Sorting figures of a range: scans, units, failures, sorted orders, speed, top products, per sorter, refusals by reason */
  GetSortingStatistics: {
    /** First instant counted (UTC). */
    from: string;
    /** End of the range counted, exclusive (UTC). */
    to: string;
    /** Successful scans: sort box items created in the range (later cancelled ones included). */
    scans: number;
    /** Units confirmed in the range (a confirm of N units counts N). */
    confirmedUnits: number;
    /** Sort box items cancelled in the range (by the sorter, or by a forced release). */
    cancelledItems: number;
    /** Scans the service refused in the range (unknown barcode, no fulfillable order, no empty slot, ...). */
    failedScans: number;
    /** Orders whose slot became Complete (every unit confirmed) in the range. */
    sortedOrders: number;
    /** Mean of confirmedAt − createdAt over the items confirmed in the range, in seconds (3 decimals); null when none was confirmed. */
    averageSecondsToConfirm: number | null;
    /** The hours worked in the range: the scope's local hours in which a scan (also a refused one), a confirmation or a cancel happened. */
    hoursWorked: number;
    /** confirmedUnits divided by hoursWorked (2 decimals); 0 when nothing was worked. */
    unitsPerHour: number;
    /** The products with the most units confirmed in the range, most first (ties by sku); at most `products` entries. */
    topProducts: {
      sku: string;
      units: number;
    }[];
    /** Per sorter (the employee who scanned): successful scans and units confirmed in the range; most units first. */
    byUser: {
      userId: number;
      scans: number;
      units: number;
    }[];
    /** Commands the service refused in the range, per refusal code: refused scans (as in failedScans) and refused confirms, cancels, swaps, releases, session starts and wall changes; most first (ties by code); codes with none are left out. */
    refusalsByReason: {
      /** The refusal's error code, as in the refused answer (e.g. barcode-not-recognized, wrong-slot). */
      code: string;
      count: number;
    }[];
  };
  /** GET /api/v1/insights/daily/orders: Orders sorted per hour of one day */
  GetDailyOrderSortingStats: {
    /** The local day, YYYY-MM-DD. */
    date: string;
    total: number;
    hourly: {
      /** Local hour of the day, 0..23 (twice the same hour on the day clocks go back). */
      hour: number;
      count: number;
    }[];
  };
  /** GET /api/v1/insights/daily/units: Units confirmed per hour of one day */
  GetDailyUnitSortingStats: {
    /** The local day, YYYY-MM-DD. */
    date: string;
    total: number;
    hourly: {
      /** Local hour of the day, 0..23 (twice the same hour on the day clocks go back). */
      hour: number;
      count: number;
    }[];
  };
  /** GET /api/v1/insights/orders/sorted: Orders sorted per day of a range */
  GetOrderSortingStatsForDateRange: {
    /** Start of the first day counted (UTC instant). */
    from: string;
    /** End of the last day counted, exclusive (UTC instant). */
    to: string;
    total: number;
    daily: {
      /** Local day, YYYY-MM-DD */
      date: string;
      count: number;
    }[];
  };
  /** GET /api/v1/insights/units/sorted: Units confirmed per day of a range */
  GetUnitSortingStatsForDateRange: {
    /** Start of the first day counted (UTC instant). */
    from: string;
    /** End of the last day counted, exclusive (UTC instant). */
    to: string;
    total: number;
    daily: {
      /** Local day, YYYY-MM-DD */
      date: string;
      count: number;
    }[];
  };
  /** GET /api/v1/insights/walls/{id}/scanned: A wall's barcode scans of a range: successful, confirmed, cancelled, refused, per input method */
  GetWallBarcodeScanningStatsForDateRange: {
    wallId: number;
    from: string;
    to: string;
    /** Successful scans (items created). */
    scans: number;
    /** Confirmations: items confirmed (whatever their units). */
    confirmed: number;
    /** Items cancelled. */
    cancelled: number;
    /** Refused scans. */
    failed: number;
    /** Scan attempts (successful + refused) per barcodeInputMethod; every method is listed. */
    byInputMethod: {
      [key: string]: number;
    };
  };
  /** GET /api/v1/insights/walls/{id}/per-slot/confirmed: Confirmations per slot of a wall over a range */
  GetWallBarcodeConfirmationStatsPerSlotForDateRange: {
    wallId: number;
    from: string;
    to: string;
    /** Every slot attached to the wall (zero when nothing counted), and slots since detached that counted in the range; by position. */
    slots: {
      crc: string;
      position: number;
      count: number;
    }[];
  };
  /** GET /api/v1/insights/walls/{id}/per-slot/scanned: Successful scans per slot of a wall over a range */
  GetWallBarcodeScanningStatsPerSlotForDateRange: {
    wallId: number;
    from: string;
    to: string;
    /** Every slot attached to the wall (zero when nothing counted), and slots since detached that counted in the range; by position. */
    slots: {
      crc: string;
      position: number;
      count: number;
    }[];
  };
  /** GET /catalog/rest/api/Catalog/Prices: A product's prices: stop-loss, site and per channel */
  GetPrices: {
    /** null when no stop-loss price is loaded */
    StopLossPrice: number | null;
    /** null when no site price is loaded */
    SitePrice: number | null;
    ChannelsPrices: {
      ChannelID: number;
      Price: number;
      UseDefaultSitePrice: boolean;
    }[];
  };
  /** GET /catalog/api/Catalog/{productID}/Prices: Obsolete: use GET /rest/api/Catalog/Prices?productID= (this path cannot carry every character of a SKU) */
  GetPricesObsolete: {
    /** null when no stop-loss price is loaded */
    StopLossPrice: number | null;
    /** null when no site price is loaded */
    SitePrice: number | null;
    ChannelsPrices: {
      ChannelID: number;
      Price: number;
      UseDefaultSitePrice: boolean;
    }[];
  };
}

/** The `data` of each event type (docs/api.md §8), as hubs receive it. */
export interface EventData {
  'session.started': {
    session: {
      /** The session id: what events and audit logs name the session by. */
      id: number;
      wallId: number;
      /** The employee connected */
      userId: number;
      /** The Open picklist the session sorts; null: any order of the wall */
      picklistId: number | null;
      /** The sorter's color on this wall: the first of the palette no other connected session holds */
      color: 'Red' | 'Blue' | 'Yellow' | 'Green' | 'Magenta' | 'Cyan';
      /** The color as #RRGGBB */
      colorHex: string;
      status: 'Connected' | 'Ended';
      /** ISO 8601 UTC */
      startedAt: string;
      /** The last connect, renew, scan, confirm, cancel or swap */
      lastActivityAt: string;
      /** When the session ends without further activity (Expired) */
      expiresAt: string;
      /** null while Connected */
      endedAt: string | null;
      /** Stopped, Replaced, Expired or Disconnected; null while Connected */
      endReason: 'Stopped' | 'Replaced' | 'Expired' | 'Disconnected' | null;
    };
  };
  'session.renewed': {
    session: {
      /** The session id: what events and audit logs name the session by. */
      id: number;
      wallId: number;
      /** The employee connected */
      userId: number;
      /** The Open picklist the session sorts; null: any order of the wall */
      picklistId: number | null;
      /** The sorter's color on this wall: the first of the palette no other connected session holds */
      color: 'Red' | 'Blue' | 'Yellow' | 'Green' | 'Magenta' | 'Cyan';
      /** The color as #RRGGBB */
      colorHex: string;
      status: 'Connected' | 'Ended';
      /** ISO 8601 UTC */
      startedAt: string;
      /** The last connect, renew, scan, confirm, cancel or swap */
      lastActivityAt: string;
      /** When the session ends without further activity (Expired) */
      expiresAt: string;
      /** null while Connected */
      endedAt: string | null;
      /** Stopped, Replaced, Expired or Disconnected; null while Connected */
      endReason: 'Stopped' | 'Replaced' | 'Expired' | 'Disconnected' | null;
    };
  };
  'session.ended': {
    session: {
      /** The session id: what events and audit logs name the session by. */
      id: number;
      wallId: number;
      /** The employee connected */
      userId: number;
      /** The Open picklist the session sorts; null: any order of the wall */
      picklistId: number | null;
      /** The sorter's color on this wall: the first of the palette no other connected session holds */
      color: 'Red' | 'Blue' | 'Yellow' | 'Green' | 'Magenta' | 'Cyan';
      /** The color as #RRGGBB */
      colorHex: string;
      status: 'Connected' | 'Ended';
      /** ISO 8601 UTC */
      startedAt: string;
      /** The last connect, renew, scan, confirm, cancel or swap */
      lastActivityAt: string;
      /** When the session ends without further activity (Expired) */
      expiresAt: string;
      /** null while Connected */
      endedAt: string | null;
      /** Stopped, Replaced, Expired or Disconnected; null while Connected */
      endReason: 'Stopped' | 'Replaced' | 'Expired' | 'Disconnected' | null;
    };
  };
  'sort-box-item.created': {
    item: {
      id: number;
      wallId: number;
      /** The slot the unit goes into */
      crc: string;
      /** A-<crc>: scanning it confirms the item */
      sorterBarcode: string;
      /** The slot position on the wall (1-based); 0 when the slot was detached since */
      position: number;
      status: 'PendingConfirmation' | 'Confirmed' | 'Cancelled';
      /** Units the scan reserved (1) */
      units: number;
      /** Units confirmed; 0 until confirmed */
      confirmedUnits: number;
      /** The order the unit was assigned to */
      orderId: number;
      /** The product the barcode resolved to */
      sku: string;
      /** The barcode as scanned */
      barcode: string;
      barcodeInputMethod: 'Scanned' | 'Typed' | 'KeyedIn' | 'EmbeddedScanner' | 'Camera';
      /** The employee who scanned */
      userId: number;
      /** The sorter's color the slot lights in */
      color: 'Red' | 'Blue' | 'Yellow' | 'Green' | 'Magenta' | 'Cyan';
      /** The color as #RRGGBB */
      colorHex: string;
      /** The order line's quantity of this SKU */
      requiredUnits: number;
      /** Units of this SKU the order still needs after this scan (required - confirmed - pending) */
      remainingUnits: number;
      /** ISO 8601 UTC */
      createdAt: string;
      /** null unless Confirmed */
      confirmedAt: string | null;
      /** null unless Cancelled */
      cancelledAt: string | null;
      /** The product required a serial number per unit when it was scanned: the confirm must carry the unit's serial */
      requiresSerial: boolean;
      /** The serial number confirmed with the unit; null until confirmed, and for products without serials */
      serial: string | null;
    };
    sortBox: {
      id: number;
      wallId: number;
      /** Hardware serial number of the light device */
      serialNumber: string;
      /** CRC-32 of the serial number, 8 upper-case hex digits: the barcode on the device */
      crc: string;
      /** A-<crc>, on the front: confirms scans */
      sorterBarcode: string;
      /** B-<crc>, on the back: releases a Complete slot */
      shipperBarcode: string;
      /** 1-based position on the wall */
      position: number;
      status: 'Empty' | 'Sorting' | 'Complete';
      /** The order the slot holds; null when Empty */
      orderId: number | null;
    };
    color: 'Red' | 'Blue' | 'Yellow' | 'Green' | 'Magenta' | 'Cyan';
    colorHex: string;
  };
  'sort-box-item.confirmed': {
    item: {
      id: number;
      wallId: number;
      /** The slot the unit goes into */
      crc: string;
      /** A-<crc>: scanning it confirms the item */
      sorterBarcode: string;
      /** The slot position on the wall (1-based); 0 when the slot was detached since */
      position: number;
      status: 'PendingConfirmation' | 'Confirmed' | 'Cancelled';
      /** Units the scan reserved (1) */
      units: number;
      /** Units confirmed; 0 until confirmed */
      confirmedUnits: number;
      /** The order the unit was assigned to */
      orderId: number;
      /** The product the barcode resolved to */
      sku: string;
      /** The barcode as scanned */
      barcode: string;
      barcodeInputMethod: 'Scanned' | 'Typed' | 'KeyedIn' | 'EmbeddedScanner' | 'Camera';
      /** The employee who scanned */
      userId: number;
      /** The sorter's color the slot lights in */
      color: 'Red' | 'Blue' | 'Yellow' | 'Green' | 'Magenta' | 'Cyan';
      /** The color as #RRGGBB */
      colorHex: string;
      /** The order line's quantity of this SKU */
      requiredUnits: number;
      /** Units of this SKU the order still needs after this scan (required - confirmed - pending) */
      remainingUnits: number;
      /** ISO 8601 UTC */
      createdAt: string;
      /** null unless Confirmed */
      confirmedAt: string | null;
      /** null unless Cancelled */
      cancelledAt: string | null;
      /** The product required a serial number per unit when it was scanned: the confirm must carry the unit's serial */
      requiresSerial: boolean;
      /** The serial number confirmed with the unit; null until confirmed, and for products without serials */
      serial: string | null;
    };
    sortBox: {
      id: number;
      wallId: number;
      /** Hardware serial number of the light device */
      serialNumber: string;
      /** CRC-32 of the serial number, 8 upper-case hex digits: the barcode on the device */
      crc: string;
      /** A-<crc>, on the front: confirms scans */
      sorterBarcode: string;
      /** B-<crc>, on the back: releases a Complete slot */
      shipperBarcode: string;
      /** 1-based position on the wall */
      position: number;
      status: 'Empty' | 'Sorting' | 'Complete';
      /** The order the slot holds; null when Empty */
      orderId: number | null;
    };
  };
  'sort-box-item.cancelled': {
    item: {
      id: number;
      wallId: number;
      /** The slot the unit goes into */
      crc: string;
      /** A-<crc>: scanning it confirms the item */
      sorterBarcode: string;
      /** The slot position on the wall (1-based); 0 when the slot was detached since */
      position: number;
      status: 'PendingConfirmation' | 'Confirmed' | 'Cancelled';
      /** Units the scan reserved (1) */
      units: number;
      /** Units confirmed; 0 until confirmed */
      confirmedUnits: number;
      /** The order the unit was assigned to */
      orderId: number;
      /** The product the barcode resolved to */
      sku: string;
      /** The barcode as scanned */
      barcode: string;
      barcodeInputMethod: 'Scanned' | 'Typed' | 'KeyedIn' | 'EmbeddedScanner' | 'Camera';
      /** The employee who scanned */
      userId: number;
      /** The sorter's color the slot lights in */
      color: 'Red' | 'Blue' | 'Yellow' | 'Green' | 'Magenta' | 'Cyan';
      /** The color as #RRGGBB */
      colorHex: string;
      /** The order line's quantity of this SKU */
      requiredUnits: number;
      /** Units of this SKU the order still needs after this scan (required - confirmed - pending) */
      remainingUnits: number;
      /** ISO 8601 UTC */
      createdAt: string;
      /** null unless Confirmed */
      confirmedAt: string | null;
      /** null unless Cancelled */
      cancelledAt: string | null;
      /** The product required a serial number per unit when it was scanned: the confirm must carry the unit's serial */
      requiresSerial: boolean;
      /** The serial number confirmed with the unit; null until confirmed, and for products without serials */
      serial: string | null;
    };
    sortBox: {
      id: number;
      wallId: number;
      /** Hardware serial number of the light device */
      serialNumber: string;
      /** CRC-32 of the serial number, 8 upper-case hex digits: the barcode on the device */
      crc: string;
      /** A-<crc>, on the front: confirms scans */
      sorterBarcode: string;
      /** B-<crc>, on the back: releases a Complete slot */
      shipperBarcode: string;
      /** 1-based position on the wall */
      position: number;
      status: 'Empty' | 'Sorting' | 'Complete';
      /** The order the slot holds; null when Empty */
      orderId: number | null;
    };
    reason?: 'slot-force-released' | 'short-button' | 'session-ended';
  };
  'sort-box-item.swapped': {
    item: {
      id: number;
      wallId: number;
      /** The slot the unit goes into */
      crc: string;
      /** A-<crc>: scanning it confirms the item */
      sorterBarcode: string;
      /** The slot position on the wall (1-based); 0 when the slot was detached since */
      position: number;
      status: 'PendingConfirmation' | 'Confirmed' | 'Cancelled';
      /** Units the scan reserved (1) */
      units: number;
      /** Units confirmed; 0 until confirmed */
      confirmedUnits: number;
      /** The order the unit was assigned to */
      orderId: number;
      /** The product the barcode resolved to */
      sku: string;
      /** The barcode as scanned */
      barcode: string;
      barcodeInputMethod: 'Scanned' | 'Typed' | 'KeyedIn' | 'EmbeddedScanner' | 'Camera';
      /** The employee who scanned */
      userId: number;
      /** The sorter's color the slot lights in */
      color: 'Red' | 'Blue' | 'Yellow' | 'Green' | 'Magenta' | 'Cyan';
      /** The color as #RRGGBB */
      colorHex: string;
      /** The order line's quantity of this SKU */
      requiredUnits: number;
      /** Units of this SKU the order still needs after this scan (required - confirmed - pending) */
      remainingUnits: number;
      /** ISO 8601 UTC */
      createdAt: string;
      /** null unless Confirmed */
      confirmedAt: string | null;
      /** null unless Cancelled */
      cancelledAt: string | null;
      /** The product required a serial number per unit when it was scanned: the confirm must carry the unit's serial */
      requiresSerial: boolean;
      /** The serial number confirmed with the unit; null until confirmed, and for products without serials */
      serial: string | null;
    };
    from: {
      id: number;
      wallId: number;
      /** Hardware serial number of the light device */
      serialNumber: string;
      /** CRC-32 of the serial number, 8 upper-case hex digits: the barcode on the device */
      crc: string;
      /** A-<crc>, on the front: confirms scans */
      sorterBarcode: string;
      /** B-<crc>, on the back: releases a Complete slot */
      shipperBarcode: string;
      /** 1-based position on the wall */
      position: number;
      status: 'Empty' | 'Sorting' | 'Complete';
      /** The order the slot holds; null when Empty */
      orderId: number | null;
    };
    to: {
      id: number;
      wallId: number;
      /** Hardware serial number of the light device */
      serialNumber: string;
      /** CRC-32 of the serial number, 8 upper-case hex digits: the barcode on the device */
      crc: string;
      /** A-<crc>, on the front: confirms scans */
      sorterBarcode: string;
      /** B-<crc>, on the back: releases a Complete slot */
      shipperBarcode: string;
      /** 1-based position on the wall */
      position: number;
      status: 'Empty' | 'Sorting' | 'Complete';
      /** The order the slot holds; null when Empty */
      orderId: number | null;
    };
  };
  'sort-box.completed': {
    sortBox: {
      id: number;
      wallId: number;
      /** Hardware serial number of the light device */
      serialNumber: string;
      /** CRC-32 of the serial number, 8 upper-case hex digits: the barcode on the device */
      crc: string;
      /** A-<crc>, on the front: confirms scans */
      sorterBarcode: string;
      /** B-<crc>, on the back: releases a Complete slot */
      shipperBarcode: string;
      /** 1-based position on the wall */
      position: number;
      status: 'Empty' | 'Sorting' | 'Complete';
      /** The order the slot holds; null when Empty */
      orderId: number | null;
    };
    orderId: number;
  };
  'sort-box.released': {
    sortBox: {
      id: number;
      wallId: number;
      /** Hardware serial number of the light device */
      serialNumber: string;
      /** CRC-32 of the serial number, 8 upper-case hex digits: the barcode on the device */
      crc: string;
      /** A-<crc>, on the front: confirms scans */
      sorterBarcode: string;
      /** B-<crc>, on the back: releases a Complete slot */
      shipperBarcode: string;
      /** 1-based position on the wall */
      position: number;
      status: 'Empty' | 'Sorting' | 'Complete';
      /** The order the slot holds; null when Empty */
      orderId: number | null;
    };
    orderId: number | null;
    forced: boolean;
    userId: number;
  };
  'wall.updated': {
    wall: {
      id: number;
      name?: string;
      isActive?: boolean;
      maxSorters?: number;
      warehouseId?: number | null;
      workflow?: 'FreeSort' | 'PicklistSort';
      flowDirection?: 'LeftToRight' | 'RightToLeft' | 'TopToBottom' | 'BottomToTop';
      segmentRows?: number | null;
      segmentColumns?: number | null;
      createdAt?: string;
      /** Slots (sort boxes) attached to the wall. */
      slotCount?: number;
      /** Sessions of the wall in status Connected. */
      connectedSorters?: number;
    };
    change: 'wall' | 'sort-boxes-attached' | 'sort-box-detached';
    sortBoxes?: {
      id: number;
      wallId: number;
      /** Hardware serial number of the light device */
      serialNumber: string;
      /** CRC-32 of the serial number, 8 upper-case hex digits: the barcode on the device */
      crc: string;
      /** A-<crc>, on the front: confirms scans */
      sorterBarcode: string;
      /** B-<crc>, on the back: releases a Complete slot */
      shipperBarcode: string;
      /** 1-based position on the wall */
      position: number;
      status: 'Empty' | 'Sorting' | 'Complete';
      /** The order the slot holds; null when Empty */
      orderId: number | null;
    }[];
  };
  'command.refused': {
    command: string;
    code: string;
    detail: string;
    sessionId: number | null;
    userId: number | null;
    barcode: string | null;
    barcodeInputMethod: string | null;
    sortBoxItemId: number | null;
    crc: string | null;
    orderId: number | null;
    picklistId: number | null;
  };
  'lights.mode': {
    mode: 'normal' | 'test' | 'show-address';
    startedAt: string | null;
    until: string | null;
    userId: number | null;
  };
  'lights.controller': {
    controller: {
      id: string;
      driver: 'mqtt' | 'tcp';
      online: boolean;
      serialNumbers: string[];
      address: string | null;
      lastSeenAt: string;
    };
  };
  'lights.button': {
    serialNumber: string;
    crc: string | null;
    position: number | null;
    button: string;
    driver: string;
    code: string;
    detail: string;
  };
}

export type EventType = keyof EventData;

/** An event as hubs receive it (WebSocket, server-sent events, GET /events/recent): its `type` narrows its `data`. */
export type WallEvent = {
  [T in EventType]: {
    /** The event id (a UUID): the lastEventId to follow the stream from */
    id: string;
    /** ISO 8601 UTC */
    occurredAt: string;
    clientId: number;
    wallId: number | null;
    type: T;
    data: EventData[T];
  };
}[EventType];
