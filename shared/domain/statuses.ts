// The states a session, a slot and a sort box item go through, as their tables store them and the API
// shows them. The machines (machines/) decide which state follows which; the names live here, below
// both the machines and the entities, so the entities, the DTOs and pure rules such as slot choice
// read them without importing a machine.

export const SESSION_STATUSES = ['Connected', 'Ended'] as const;
export type SessionStatus = (typeof SESSION_STATUSES)[number];

export const SESSION_END_REASONS = ['Stopped', 'Replaced', 'Expired', 'Disconnected'] as const;
export type SessionEndReason = (typeof SESSION_END_REASONS)[number];

export const SLOT_STATUSES = ['Empty', 'Sorting', 'Complete'] as const;
export type SlotStatus = (typeof SLOT_STATUSES)[number];

export const SORT_BOX_ITEM_STATUSES = ['PendingConfirmation', 'Confirmed', 'Cancelled'] as const;
export type SortBoxItemStatus = (typeof SORT_BOX_ITEM_STATUSES)[number];
