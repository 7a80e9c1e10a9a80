import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { hubEventsModule } from './event-rules';

// `npm run events:hub`: writes services/hub/events.js, the pages' copy of the event contract.
writeFileSync(join(__dirname, '../../services/hub/events.js'), hubEventsModule());
