PRAGMA foreign_keys=OFF;
BEGIN TRANSACTION;
INSERT INTO nomina_tipos_jornadas VALUES('01','Diurna');
INSERT INTO nomina_tipos_jornadas VALUES('02','Nocturna');
INSERT INTO nomina_tipos_jornadas VALUES('03','Mixta');
INSERT INTO nomina_tipos_jornadas VALUES('04','Por hora');
INSERT INTO nomina_tipos_jornadas VALUES('05','Reducida');
COMMIT;
