PRAGMA foreign_keys=OFF;
BEGIN TRANSACTION;
INSERT INTO nomina_bancos VALUES('002','BANAMEX','Banco Nacional de México, S.A., Institución de Banca Múltiple, Grupo Financiero Banamex','2017-01-01','');
INSERT INTO nomina_bancos VALUES('006','BANCOMEXT','Banco Nacional de Comercio Exterior, Sociedad Nacional de Crédito, Institución de Banca de Desarrollo','2017-01-01','');
INSERT INTO nomina_bancos VALUES('009','BANOBRAS','Banco Nacional de Obras y Servicios Públicos, Sociedad Nacional de Crédito, Institución de Banca de Desarrollo','2017-01-01','');
INSERT INTO nomina_bancos VALUES('012','BBVA BANCOMER','BBVA Bancomer, S.A., Institución de Banca Múltiple, Grupo Financiero BBVA Bancomer','2017-01-01','');
INSERT INTO nomina_bancos VALUES('014','SANTANDER','Banco Santander (México), S.A., Institución de Banca Múltiple, Grupo Financiero Santander','2017-01-01','');
COMMIT;
