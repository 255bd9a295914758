PRAGMA foreign_keys=OFF;
BEGIN TRANSACTION;
INSERT INTO cfdi_40_reglas_tasa_cuota VALUES('Fijo','','0.160000','IVA','Tasa',1,'','2022-01-01','');
INSERT INTO cfdi_40_reglas_tasa_cuota VALUES('Rango','0.000000','0.160000','IVA','Tasa','',1,'2022-01-01','');
COMMIT;
