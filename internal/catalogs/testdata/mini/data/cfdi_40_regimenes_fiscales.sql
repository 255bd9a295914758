PRAGMA foreign_keys=OFF;
BEGIN TRANSACTION;
INSERT INTO cfdi_40_regimenes_fiscales VALUES('601','General de Ley Personas Morales','',1,'2022-01-01','');
INSERT INTO cfdi_40_regimenes_fiscales VALUES('605','Sueldos y Salarios e Ingresos Asimilados a Salarios',1,'','2022-01-01','');
INSERT INTO cfdi_40_regimenes_fiscales VALUES('616','Sin obligaciones fiscales',1,'','2022-01-01','');
INSERT INTO cfdi_40_regimenes_fiscales VALUES('626','Régimen Simplificado de Confianza',1,1,'2022-01-01','');
COMMIT;
