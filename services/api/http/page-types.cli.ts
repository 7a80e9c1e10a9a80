import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pageTypesModule } from './page-types';

// `npm run pages:types`: writes services/hub/types.d.ts, the pages' declarations of the API's answers and events.
writeFileSync(join(__dirname, '../../hub/types.d.ts'), pageTypesModule());
