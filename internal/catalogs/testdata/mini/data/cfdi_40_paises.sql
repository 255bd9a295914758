PRAGMA foreign_keys=OFF;
BEGIN TRANSACTION;
INSERT INTO cfdi_40_paises VALUES('DEU','Alemania','','','','Unión Europea');
INSERT INTO cfdi_40_paises VALUES('CAN','Canadá','[A-Z][0-9][A-Z] [0-9][A-Z][0-9]','[0-9]{9}','','TLCAN');
INSERT INTO cfdi_40_paises VALUES('USA','Estados Unidos (los)','[0-9]{5}(-[0-9]{4})?','[0-9]{9}','','TLCAN');
INSERT INTO cfdi_40_paises VALUES('MEX','México','[0-9]{5}','[A-Z&Ñ]{3,4}[0-9]{2}(0[1-9]|1[012])(0[1-9]|[12][0-9]|3[01])[A-Z0-9]{2}[0\n-9A]','Lista del SAT','TLCAN');
COMMIT;
