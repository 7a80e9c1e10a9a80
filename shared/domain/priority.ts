// Ascending order matters: priorityRank is what order choice compares (higher rank sorts first).

export const ORDER_PRIORITIES = ['Low', 'Normal', 'High', 'Critical'] as const;

export type OrderPriority = (typeof ORDER_PRIORITIES)[number];

export const DEFAULT_ORDER_PRIORITY: OrderPriority = 'Normal';

/** Low 0, Normal 1, High 2, Critical 3. */
export function priorityRank(priority: OrderPriority): number {
  return ORDER_PRIORITIES.indexOf(priority);
}
