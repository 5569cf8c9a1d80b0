import CSndFile

/// libsndfile is not instrumented, so the fuzzer cannot see which of its decoders an input
/// reached. One edge here per container and per encoding makes each a feature of its own,
/// and inputs that reach another decoder are kept.
func markFormat(_ format: Int32, channels: Int32) -> Int {
    var mark = 0
    switch format & Int32(SF_FORMAT_TYPEMASK) {
    case Int32(SF_FORMAT_WAV): mark = 1
    case Int32(SF_FORMAT_AIFF): mark = 2
    case Int32(SF_FORMAT_AU): mark = 3
    case Int32(SF_FORMAT_RAW): mark = 4
    case Int32(SF_FORMAT_PAF): mark = 5
    case Int32(SF_FORMAT_SVX): mark = 6
    case Int32(SF_FORMAT_NIST): mark = 7
    case Int32(SF_FORMAT_VOC): mark = 8
    case Int32(SF_FORMAT_IRCAM): mark = 9
    case Int32(SF_FORMAT_W64): mark = 10
    case Int32(SF_FORMAT_MAT4): mark = 11
    case Int32(SF_FORMAT_MAT5): mark = 12
    case Int32(SF_FORMAT_PVF): mark = 13
    case Int32(SF_FORMAT_XI): mark = 14
    case Int32(SF_FORMAT_HTK): mark = 15
    case Int32(SF_FORMAT_SDS): mark = 16
    case Int32(SF_FORMAT_AVR): mark = 17
    case Int32(SF_FORMAT_WAVEX): mark = 18
    case Int32(SF_FORMAT_SD2): mark = 19
    case Int32(SF_FORMAT_FLAC): mark = 20
    case Int32(SF_FORMAT_CAF): mark = 21
    case Int32(SF_FORMAT_WVE): mark = 22
    case Int32(SF_FORMAT_OGG): mark = 23
    case Int32(SF_FORMAT_MPC2K): mark = 24
    case Int32(SF_FORMAT_RF64): mark = 25
    case Int32(SF_FORMAT_MPEG): mark = 26
    default: mark = 0
    }
    switch format & Int32(SF_FORMAT_SUBMASK) {
    case Int32(SF_FORMAT_PCM_S8): mark += 100
    case Int32(SF_FORMAT_PCM_16): mark += 200
    case Int32(SF_FORMAT_PCM_24): mark += 300
    case Int32(SF_FORMAT_PCM_32): mark += 400
    case Int32(SF_FORMAT_PCM_U8): mark += 500
    case Int32(SF_FORMAT_FLOAT): mark += 600
    case Int32(SF_FORMAT_DOUBLE): mark += 700
    case Int32(SF_FORMAT_ULAW): mark += 800
    case Int32(SF_FORMAT_ALAW): mark += 900
    case Int32(SF_FORMAT_IMA_ADPCM): mark += 1000
    case Int32(SF_FORMAT_MS_ADPCM): mark += 1100
    case Int32(SF_FORMAT_GSM610): mark += 1200
    case Int32(SF_FORMAT_VOX_ADPCM): mark += 1300
    case Int32(SF_FORMAT_NMS_ADPCM_16): mark += 1400
    case Int32(SF_FORMAT_NMS_ADPCM_24): mark += 1500
    case Int32(SF_FORMAT_NMS_ADPCM_32): mark += 1600
    case Int32(SF_FORMAT_G721_32): mark += 1700
    case Int32(SF_FORMAT_G723_24): mark += 1800
    case Int32(SF_FORMAT_G723_40): mark += 1900
    case Int32(SF_FORMAT_DWVW_12): mark += 2000
    case Int32(SF_FORMAT_DWVW_16): mark += 2100
    case Int32(SF_FORMAT_DWVW_24): mark += 2200
    case Int32(SF_FORMAT_DWVW_N): mark += 2300
    case Int32(SF_FORMAT_DPCM_8): mark += 2400
    case Int32(SF_FORMAT_DPCM_16): mark += 2500
    case Int32(SF_FORMAT_VORBIS): mark += 2600
    case Int32(SF_FORMAT_OPUS): mark += 2700
    case Int32(SF_FORMAT_ALAC_16): mark += 2800
    case Int32(SF_FORMAT_ALAC_20): mark += 2900
    case Int32(SF_FORMAT_ALAC_24): mark += 3000
    case Int32(SF_FORMAT_ALAC_32): mark += 3100
    case Int32(SF_FORMAT_MPEG_LAYER_I): mark += 3200
    case Int32(SF_FORMAT_MPEG_LAYER_II): mark += 3300
    case Int32(SF_FORMAT_MPEG_LAYER_III): mark += 3400
    default: break
    }
    switch channels {
    case 1: mark += 10_000
    case 2: mark += 20_000
    default: mark += 30_000
    }
    return mark
}
