PRAGMA foreign_keys=OFF;
BEGIN TRANSACTION;
INSERT INTO nomina_estados VALUES('AGU','MEX','Aguascalientes','2017-01-01','');
INSERT INTO nomina_estados VALUES('BCN','MEX','Baja California','2017-01-01','');
INSERT INTO nomina_estados VALUES('BCS','MEX','Baja California Sur','2017-01-01','');
INSERT INTO nomina_estados VALUES('CAM','MEX','Campeche','2017-01-01','');
INSERT INTO nomina_estados VALUES('CHP','MEX','Chiapas','2017-01-01','');
INSERT INTO nomina_estados VALUES('JAL','MEX','Jalisco','2017-01-01','');
COMMIT;
