import type { Histogram } from 'prom-client';

type Observer = ReturnType<Histogram<string>['labels']>;

/**
 * A histogram's children, each bound once by a key of its label values: an observation is then a map
 * lookup, not a label object and prom-client's checks of it. As many as the histogram's own series;
 * cleared past `max` (a mistake that makes label values many must not grow the map without end).
 */
export function boundObservers(histogram: Histogram<string>, max: number): (key: string, labels: () => string[]) => Observer {
  const observers = new Map<string, Observer>();
  return (key, labels) => {
    let observer = observers.get(key);
    if (!observer) {
      if (observers.size >= max) observers.clear();
      observer = histogram.labels(...labels());
      observers.set(key, observer);
    }
    return observer;
  };
}
