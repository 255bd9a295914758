PRAGMA foreign_keys=OFF;
BEGIN TRANSACTION;
INSERT INTO cfdi_40_municipios VALUES('001','AGU','Aguascalientes','2022-01-01','');
INSERT INTO cfdi_40_municipios VALUES('001','BCN','Ensenada','2022-01-01','');
INSERT INTO cfdi_40_municipios VALUES('002','AGU','Asientos','2022-01-01','');
COMMIT;
