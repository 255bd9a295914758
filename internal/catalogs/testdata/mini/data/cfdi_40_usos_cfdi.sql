PRAGMA foreign_keys=OFF;
BEGIN TRANSACTION;
INSERT INTO cfdi_40_usos_cfdi VALUES('G01','Adquisición de mercancías.',1,1,'2022-01-01','','601, 603, 606, 612, 620, 621, 622, 623, 624, 625,626');
INSERT INTO cfdi_40_usos_cfdi VALUES('G03','Gastos en general.',1,1,'2022-01-01','','601, 603, 606, 612, 620, 621, 622, 623, 624, 625, 626');
INSERT INTO cfdi_40_usos_cfdi VALUES('S01','Sin efectos fiscales.',1,1,'2022-01-01','','601, 603, 605, 606, 608, 610, 611, 612, 614, 616, 620, 621, 622, 623, 624, 607, 615, 625, 626');
INSERT INTO cfdi_40_usos_cfdi VALUES('CP01','Pagos',1,1,'2022-01-01','','601, 603, 605, 606, 608, 610, 611, 612, 614, 616, 620, 621, 622, 623, 624, 607, 615, 625, 626');
INSERT INTO cfdi_40_usos_cfdi VALUES('CN01','Nómina',1,'','2022-01-01','','605');
COMMIT;
