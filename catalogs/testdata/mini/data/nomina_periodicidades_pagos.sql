PRAGMA foreign_keys=OFF;
BEGIN TRANSACTION;
INSERT INTO nomina_periodicidades_pagos VALUES('01','Diario','2016-11-01','');
INSERT INTO nomina_periodicidades_pagos VALUES('02','Semanal','2016-11-01','');
INSERT INTO nomina_periodicidades_pagos VALUES('03','Catorcenal','2016-11-01','');
INSERT INTO nomina_periodicidades_pagos VALUES('04','Quincenal','2016-11-01','');
INSERT INTO nomina_periodicidades_pagos VALUES('05','Mensual','2016-11-01','');
COMMIT;
