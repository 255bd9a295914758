PRAGMA foreign_keys=OFF;
BEGIN TRANSACTION;
INSERT INTO cfdi_40_claves_unidades VALUES('ACT','Actividad','Unidad de recuento para definir el número de actividades (actividad: una unidad de trabajo o acción).','','2022-01-01','','');
INSERT INTO cfdi_40_claves_unidades VALUES('E48','Unidad de servicio','Unidad de conteo que define el número de unidades de servicio (unidad de servicio: definido período / propiedad / centro / utilidad de alimentación).','','2022-01-01','','');
INSERT INTO cfdi_40_claves_unidades VALUES('H87','Pieza','Unidad de conteo que define el número de piezas (pieza: un solo artículo, artículo o ejemplar).','','2022-01-01','','');
INSERT INTO cfdi_40_claves_unidades VALUES('KGM','Kilogramo','Una unidad de masa igual a mil gramos.','','2022-01-01','','kg');
INSERT INTO cfdi_40_claves_unidades VALUES('XBX','Caja','','','2022-01-01','','');
COMMIT;
